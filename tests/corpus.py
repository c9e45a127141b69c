"""A generated set of skills and subagent definitions shaped like public collections (written in
our own words): prices and awk fields in bodies, `: ` inside one-line descriptions, folded and
literal descriptions, tools as lists and comma strings, tools we do not have, metadata blocks.

Used by the real-world tests and by `make bench`'s scale case. Deterministic for a given seed.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

AREAS = ["billing", "search", "payments", "analytics", "auth", "notifications", "inventory", "checkout",
         "reporting", "onboarding", "storage", "gateway", "scheduler", "catalog", "ledger", "sync"]
ACTIONS = ["review", "audit", "deploy", "migrate", "document", "profile", "triage", "refactor", "test",
           "summarize", "release", "benchmark", "lint", "translate", "archive", "validate"]
OBJECTS = ["schema changes", "API contracts", "release notes", "flaky tests", "cost reports",
           "access logs", "feature flags", "error budgets", "dependency updates", "data exports"]
UNKNOWN_TOOLS = ["WebFetch", "WebSearch", "TodoWrite", "MultiEdit", "LS", "NotebookEdit", "mcp__tracker__create_issue"]


def _name(rng: random.Random, index: int) -> str:
    return f"{rng.choice(AREAS)}-{rng.choice(ACTIONS)}-{index:04d}"


def _description(rng: random.Random, name: str) -> str:
    area, action = name.split("-")[:2]
    sentences = [
        f"Helps {action} {rng.choice(OBJECTS)} for the {area} service.",
        f"Use it when someone asks to {action} {rng.choice(OBJECTS)} or mentions {area}.",
        f"It reads the code, checks {rng.choice(OBJECTS)} against the team's rules, and reports what it found.",
        f"Not for {rng.choice(OBJECTS)} outside {area}.",
    ]
    return " ".join(sentences[:rng.randint(2, 4)])


def _body(rng: random.Random, size: int) -> str:
    blocks = [
        "## Prices\n\n| Plan | Monthly |\n| --- | --- |\n| Basic | $5.00 |\n| Team | $25.00 |\n",
        "## Columns\n\n```sh\nawk -F'\\t' '{print $1, $5}' export.tsv | sort | uniq -c\n```\n",
        "## Spreadsheet\n\nThe total lives in cell $B$6 and the rate in $C$2; never edit them by hand.\n",
        "## Steps\n\n1. Read the files named in the request.\n2. Check each against the rules below.\n"
        "3. Report findings as a list, most serious first.\n",
        "## Rules\n\n- Keep changes small.\n- Quote file paths exactly.\n- Say what you could not check.\n",
    ]
    text = "# Instructions\n\n"
    while len(text) < size:
        text += rng.choice(blocks) + "\n"
    return text


def _skill_frontmatter(rng: random.Random, name: str, description: str) -> str:
    style = rng.random()
    lines = [f"name: {name}"]
    if style < 0.1:  # one line with ': ' inside, unquoted, as about one real file in ten has it
        lines.append(f"description: {description} Triggers on: '{name.split('-')[0]}', '{name.split('-')[1]}'")
    elif style < 0.35:
        lines.append(f"description: {description}")
    elif style < 0.6:
        words = description.split()
        folded = "\n".join("  " + " ".join(words[i:i + 8]) for i in range(0, len(words), 8))
        lines.append(f"description: >\n{folded}")
    elif style < 0.75:
        lines.append("description: |\n  " + description.replace(". ", ".\n  "))
    else:
        lines.append(f'description: "{description}"')
    if rng.random() < 0.4:
        lines.append(f"when_to_use: When the user says '{name.split('-')[1]} it'.")
    if rng.random() < 0.5:
        lines.append("license: Apache-2.0")
    if rng.random() < 0.5:
        lines.append(f"metadata:\n  owner: {name.split('-')[0]}-team\n  version: 1.{rng.randint(0, 9)}\n  tags:\n    - internal\n    - {name.split('-')[1]}")
    if rng.random() < 0.3:
        lines.append("allowed-tools: Read, Grep, Bash(git log:*)" if rng.random() < 0.5 else "allowed-tools:\n  - Read\n  - Glob")
    if rng.random() < 0.2:
        lines.append("argument-hint: [path] [depth]" if rng.random() < 0.3 else "argument-hint: <path>")
    return "\n".join(lines)


def _agent_frontmatter(rng: random.Random, name: str, description: str, names: list[str]) -> str:
    examples = f" Examples: 'check {name.split('-')[0]}', 'run it now'" if rng.random() < 0.15 else ""
    lines = [f"name: {name}", f"description: {description}{examples}"]
    style = rng.random()
    if style < 0.3:
        lines.append("tools: Read, Grep, Glob" + (f", {rng.choice(UNKNOWN_TOOLS)}" if rng.random() < 0.5 else ""))
    elif style < 0.55:
        lines.append("tools:\n  - Read\n  - Bash\n  - " + rng.choice(UNKNOWN_TOOLS))
    elif style < 0.6:
        lines.append("tools: []")
    elif style < 0.7 and names:
        lines.append(f"tools: Read, Agent({', '.join(rng.sample(names, min(2, len(names))))})")
    if rng.random() < 0.5:
        lines.append(f"model: {rng.choice(['inherit', 'sonnet', 'haiku', 'opus'])}")
    if rng.random() < 0.5:
        lines.append(f"color: {rng.choice(['blue', 'green', 'orange'])}")
    return "\n".join(lines)


def seed_corpus(root: Path, skills: int = 300, agents: int = 150, seed: int = 7,
                body_sizes: tuple[int, int] = (2_000, 10_000), age_s: float = 0) -> tuple[list[str], list[str]]:
    """Write `skills` skill folders and `agents` agent files under `root/.claude`, last modified
    `age_s` seconds ago (real collections are not edited the second before a run); returns their
    names (skills, agents)."""
    rng = random.Random(seed)
    skill_names, agent_names = [], []
    for index in range(skills):
        name = _name(rng, index)
        folder = root / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        text = f"---\n{_skill_frontmatter(rng, name, _description(rng, name))}\n---\n\n{_body(rng, rng.randint(*body_sizes))}"
        (folder / "SKILL.md").write_text(text)
        skill_names.append(name)
    agents_folder = root / ".claude" / "agents"
    agents_folder.mkdir(parents=True, exist_ok=True)
    for index in range(agents):
        name = _name(rng, index) + "-agent"
        text = (f"---\n{_agent_frontmatter(rng, name, _description(rng, name), agent_names)}\n---\n\n"
                f"You are the {name} agent.\n\n{_body(rng, rng.randint(*body_sizes))}")
        sub = agents_folder / rng.choice(["", "review", "ops"])
        sub.mkdir(exist_ok=True)
        (sub / f"{name}.md").write_text(text)
        agent_names.append(name)
    if age_s:
        then = time.time() - age_s
        for path in (root / ".claude").rglob("*.md"):
            os.utime(path, (then, then))
    return skill_names, agent_names
