"""What the task tools tell the model, in our words, with the substance of Claude Code 2.1.332's
descriptions (when to keep a list, each field, the status workflow, the results)."""

TASK_CREATE = """\
Create a task in the task list of this coding session. A list keeps a multi-step job organised, \
shows the user how far along it is, and shows that nothing was forgotten.

## When to use it
- The work takes 3 or more distinct steps, or needs careful planning
- In plan mode, to track the planned work
- The user asks for a todo list, or gives several things to do (numbered or separated by commas)
- New instructions arrive: write the requirements down as tasks at once
- Mark a task in_progress (TaskUpdate) before you start on it, and completed when it is done, adding any follow-up tasks you found

## When not to use it
- There is one simple task, or the work takes fewer than 3 trivial steps: just do it
- The request is conversational or informational

## Fields
- **subject**: a short title in the imperative ("Fix the login redirect")
- **description**: what has to be done
- **activeForm** (optional): the present continuous form shown in the spinner while the task is in_progress ("Fixing the login redirect"); without it the spinner shows the subject

Every task starts as `pending`. Call TaskList first so you do not create a task twice, and set up \
dependencies (blocks/blockedBy) afterwards with TaskUpdate.
"""

TASK_GET = """\
Get one task of the task list by its id: its subject, description, status ('pending', \
'in_progress' or 'completed'), the tasks it blocks and the open tasks that block it.

Use it before starting on a task, to read everything it asks and to see its dependencies; start \
only when nothing blocks it any more. TaskList shows every task in short.
"""

TASK_LIST = """\
List every task of the task list in short: id (for TaskGet and TaskUpdate), subject, status \
('pending', 'in_progress' or 'completed'), owner (the agent it is assigned to, if any) and the open \
tasks blocking it (a blocked task cannot be started until they are resolved).

Use it to see overall progress, to find work that is available (pending, no owner, not blocked) \
and, after finishing a task, to find the next one. When several tasks are available, prefer the \
lowest id: earlier tasks often set up what later ones need.
"""

TASK_UPDATE = """\
Change a task of the task list.

## Resolving tasks
- Mark a task `completed` only once its work is fully done: not while tests fail, the work is partial, errors are unresolved or something needed could not be found
- When you are blocked, keep it `in_progress` and create a task for what must be resolved first
- Always resolve the tasks assigned to you when you finish them, then call TaskList for the next one
- Status `deleted` removes a task for good (no longer relevant, or created by mistake)

## Fields
- **status**: `pending` → `in_progress` → `completed`, or `deleted`
- **subject**, **description**, **activeForm** (present continuous, shown while in_progress), **owner** (an agent's name)
- **metadata**: keys merged into the task's metadata (a key set to null is removed)
- **addBlocks**: tasks that cannot start until this one is done; **addBlockedBy**: tasks that must be done before this one

Read a task's latest state with TaskGet before changing it.

## Examples
- Start: {"taskId": "1", "status": "in_progress"}
- Finish: {"taskId": "1", "status": "completed"}
- Remove: {"taskId": "1", "status": "deleted"}
- Claim: {"taskId": "1", "owner": "my-name"}
- Depend: {"taskId": "2", "addBlockedBy": ["1"]}
"""

TASK_STOP = """\
- Stop a running background task (a background agent) by its id
- Give its id as task_id: the agentId its launch returned
- Returns whether it was stopped
- Use it to end a long-running task that is no longer needed
"""

TODO_WRITE = """\
Write the todo list of this coding session: the whole list each time, every item with its \
content, status and activeForm. A list keeps a multi-step job organised and shows the user how \
far along it is.

## When to use it
- The work takes 3 or more distinct steps, or needs careful planning
- The user asks for a todo list, or gives several things to do (numbered or separated by commas)
- New instructions arrive: write the requirements down as todos at once
- Mark an item in_progress before you start on it (ideally one at a time), and completed as soon as it is done, adding follow-up items you found

## When not to use it
- There is one simple task, or the work takes fewer than 3 trivial steps: just do it
- The request is conversational or informational (explaining a command, printing hello world)

## States
- pending: not started; in_progress: being worked on (exactly one at a time); completed: fully done
- Each item has two forms: content, the imperative ("Run the tests"), and activeForm, the present continuous shown while it runs ("Running the tests")
- Never mark an item completed while tests fail, the work is partial or errors are unresolved; keep it in_progress and add an item for what blocks it
- Update the list as you go, complete items immediately (do not batch them), and remove items that no longer apply

When in doubt, use this tool.
"""

TODO_WRITTEN = ("Todos have been modified successfully. Ensure that you continue to use the todo list to track "
                "your progress. Please proceed with the current tasks if applicable")
