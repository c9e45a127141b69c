import os
import sys
import threading

from agent.cli import EXIT_INTERRUPTED, main

code = main()
if code == EXIT_INTERRUPTED and threading.active_count() > 1:
    # Ctrl-C: subagents still waiting on a model reply stop at their next step, but the
    # interpreter would wait for them before exiting; the user asked to stop now.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
raise SystemExit(code)
