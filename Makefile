# Two commands for a newcomer: `make demo` and `make test`. Everything else is for maintainers.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-path-test
DEMO_PROMPT := Fix the failing test
DEMO_CASSETTE := cassettes/demo/test_fix_the_failing_test-openrouter.yaml
DEMO_SKILL_PROMPT := Who is on the on-call rotation right now?
DEMO_SKILL_CASSETTE := cassettes/demo/test_on_call_skill_runs_in_a_subagent-openrouter.yaml
DEMO_AGENT_PROMPT := Use the reviewer agent to review stats.py
DEMO_AGENT_CASSETTE := cassettes/demo/test_reviewer_agent_reviews_in_its_own_context-openrouter.yaml

.PHONY: setup test record demo demo-run bench smoke

setup: $(STAMP)

# One short pip attempt, its output in a log: with no network, one line instead of a minute of retries.
$(STAMP): pyproject.toml
	@$(PYTHON) -m venv $(VENV) && $(VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
	  --retries 1 --timeout 15 --config-settings editable_mode=compat -e '.[test]' >.venv-install.log 2>&1 || { \
	  echo "error: could not build $(VENV) (no network?); see .venv-install.log. Build it while online (make setup) and cache $(VENV), keyed on pyproject.toml" >&2; \
	  exit 2; }
	@rm -f .venv-install.log
	touch $(VENV)/.installed-path $@

# Replays every cassette, on all cores (pytest-xdist); the network is blocked (loopback test servers
# aside) and no key is needed.
test: setup
	$(VENV)/bin/pytest -n auto --block-network --allowed-hosts=127.0.0.1

# Re-records every cassette: against the real provider when its key is set, else the scripted model.
record: setup
	$(VENV)/bin/pytest --record-mode=rewrite

# Opt-in live check (not part of `make test`): a few prompts recorded against the endpoint the
# environment points at (OPENROUTER_* and/or ANTHROPIC_*, SMOKE_MODEL), on both wires; reports each
# request's status and whether its reply decoded. SMOKE_ARGS="--save DIR --label TEXT" keeps them.
smoke: setup
	$(VENV)/bin/python tests/smoke.py $(SMOKE_ARGS)

# Our overhead, payload and long-session figures against their targets (a benchmark, not a test;
# exit 1 when a target is missed). BENCH=short or BENCH=long runs one part; BENCH_ARGS="--turns 200".
bench: setup
	$(VENV)/bin/python tests/bench.py $(if $(BENCH),--$(BENCH)) $(BENCH_ARGS)

# Runs the agent on the bundled sample project, offline, by replaying the bundled cassettes:
# it fixes a failing check, a forked skill answers who is on call, and a reviewer subagent reviews.
# The replies come from the cassettes, which tests/test_demo.py recorded against the scripted model:
# a test wrote them, not a model (the narration says so, from each cassette's setup).
demo: setup
	@$(MAKE) -s demo-run PROMPT="$(DEMO_PROMPT)" CASSETTE=$(DEMO_CASSETTE)
	@$(MAKE) -s demo-run PROMPT="$(DEMO_SKILL_PROMPT)" CASSETTE=$(DEMO_SKILL_CASSETTE)
	@$(MAKE) -s demo-run PROMPT="$(DEMO_AGENT_PROMPT)" CASSETTE=$(DEMO_AGENT_CASSETTE)

# One demo prompt in a fresh copy of the sample workspace, trusted (it is ours: its settings and
# skill grant what the demo needs); provider and model come from the cassette.
demo-run:
	@work=$$(mktemp -d) && mkdir "$$work/home" "$$work/ws" && cp -R cassettes/demo/workspace/. "$$work/ws" && \
	  cd "$$work/ws" && export HOME="$$work/home" && \
	  printf '\n$$ ./your_program.sh -p "%s" --trust-workspace --replay %s    (in a copy of cassettes/demo/workspace)\n' "$(PROMPT)" "$(CASSETTE)" >&2 && \
	  $(CURDIR)/your_program.sh -p "$(PROMPT)" --verbose --trust-workspace --replay $(CURDIR)/$(CASSETTE); \
	  status=$$?; rm -rf "$$work"; exit $$status
