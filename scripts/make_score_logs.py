"""Write two small partial-credit Inspect AI logs with the real inspect-ai and its ``mockllm/model``.

The example of ``metric: mean`` (issue 29): a shell-command task scored as CyBashBench and NL2Bash
score, with partial credit.  Each log is one ``eval()`` run of the same 16 samples over three
epochs; the solver answers a command whose quality is fixed by (side, sample id, epoch), so the
outcomes are the same on every run (inspect-ai's run ids and times are not).

* ``partial`` (first scorer, numeric): 1 for the exact command, 0.8 for the right program with the
  right flags, 0.5 for the right program, else 0 -- the 0 / 0.5 / 0.8 / 1 scale of the issue;
* ``exact`` (second scorer, C / I): the command matches the target exactly.

Both scorers carry inspect-ai's ``mean`` metric, so each log's header publishes its own mean, which
evalsite's task-macro mean reproduces (``tests/importers/test_inspect_scores.py``).  No sample errors,
so no traceback (and no machine path) is written.

Outputs: ``examples/scores/{baseline,candidate}.eval`` and copies for the tests in
``tests/importers/fixtures/scores/``.

    .venv/bin/python scripts/make_score_logs.py
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

ROOT = Path(__file__).resolve().parent.parent
OUTPUTS = (ROOT / "examples" / "scores", ROOT / "tests" / "importers" / "fixtures" / "scores")
EPOCHS = 3

# sample id -> (request, target command)
COMMANDS = {
    "count-lines": ("Count the lines of notes.txt.", "wc -l notes.txt"),
    "list-hidden": ("List every file here, hidden ones too, in long form.", "ls -la"),
    "find-logs": ("Find files ending in .log under /var.", "find /var -name '*.log'"),
    "disk-usage": ("Show the size of the folder data, human readable.", "du -sh data"),
    "grep-error": ("Show lines containing ERROR in app.log, case-insensitive.", "grep -i ERROR app.log"),
    "sort-unique": ("Sort names.txt and drop duplicate lines.", "sort -u names.txt"),
    "tail-follow": ("Follow the end of server.log as it grows.", "tail -f server.log"),
    "make-dirs": ("Create the folder a/b/c with its parents.", "mkdir -p a/b/c"),
    "copy-tree": ("Copy the folder src to dst recursively.", "cp -r src dst"),
    "archive": ("Pack the folder site into site.tar.gz.", "tar -czf site.tar.gz site"),
    "permissions": ("Make run.sh executable for everyone.", "chmod +x run.sh"),
    "processes": ("List every process with its user.", "ps aux"),
    "head-ten": ("Show the first ten lines of data.csv.", "head -n 10 data.csv"),
    "env-path": ("Print the PATH variable.", "echo $PATH"),
    "word-count": ("Count the words of essay.txt.", "wc -w essay.txt"),
    "free-memory": ("Show free memory in megabytes.", "free -m"),
}
# Per side, the chance (in 1/16ths) of each quality: exact, flags right, program right, wrong.
SHARES = {"baseline": (5, 4, 4, 3), "candidate": (8, 5, 2, 1)}


def quality(side: str, sample_id: str, epoch: int) -> int:
    """0 exact, 1 flags right, 2 program right, 3 wrong: fixed by a hash of (side, sample, epoch)."""
    draw = hashlib.sha256(f"{side}/{sample_id}/{epoch}".encode()).digest()[0] % 16
    bound = 0
    for level, share in enumerate(SHARES[side]):
        bound += share
        if draw < bound:
            return level
    return 3


def answer(target: str, level: int) -> str:
    program, *rest = target.split()
    flags = [part for part in rest if part.startswith("-")]
    if level == 0:
        return target
    if level == 1:
        return " ".join([program, *flags, "other-file"])
    if level == 2:
        return f"{program} --wrong-flag"
    return "echo not sure"


@solver
def scripted(side: str):  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        target = COMMANDS[str(state.sample_id)][1]
        content = answer(target, quality(side, str(state.sample_id), state.epoch))
        output = ModelOutput.from_content(model="mockllm/model", content=content)
        output.usage = ModelUsage(input_tokens=30, output_tokens=len(content), total_tokens=30 + len(content))
        model = get_model("mockllm/model", custom_outputs=[output], memoize=False)
        state.output = await model.generate(state.messages)
        state.messages.append(state.output.message)
        return state

    return solve


@scorer(metrics=[mean()])
def partial():  # type: ignore[no-untyped-def]
    """1 exact; 0.8 the right program and flags; 0.5 the right program; else 0."""

    async def score(state: TaskState, target: Target) -> Score:
        got, want = state.output.completion.split(), target.text.split()
        if got == want:
            value = 1.0
        elif got[:1] == want[:1] and [p for p in got if p.startswith("-")] == [p for p in want if p.startswith("-")]:
            value = 0.8
        elif got[:1] == want[:1]:
            value = 0.5
        else:
            value = 0.0
        return Score(value=value, answer=state.output.completion)

    return score


@scorer(metrics=[mean()])
def exact():  # type: ignore[no-untyped-def]
    """C when the command is the target exactly, else I."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value="C" if state.output.completion.strip() == target.text else "I")

    return score


def run(side: str, folder: Path) -> Path:
    task = Task(
        name="shell",
        dataset=[Sample(id=key, input=text, target=target) for key, (text, target) in COMMANDS.items()],
        solver=scripted(side),
        scorer=[partial(), exact()],
        epochs=EPOCHS,
    )
    (log,) = eval(
        task,
        model="mockllm/model",
        log_dir=str(folder / side),
        log_format="eval",
        max_samples=1,
        display="none",
        log_samples=True,
    )
    return Path(log.location)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        written = []
        for side in ("baseline", "candidate"):
            log = read_eval_log(str(run(side, folder)))
            if log.status != "success":
                raise SystemExit(f"error: the {side} run ended {log.status}")
            path = folder / f"{side}.eval"
            write_eval_log(log, str(path), format="eval")
            if tmp in read_eval_log(str(path)).model_dump_json():
                raise SystemExit(f"error: {path.name} names the temporary folder")
            written.append(path)
        for out in OUTPUTS:
            out.mkdir(parents=True, exist_ok=True)
            for source in written:
                shutil.copyfile(source, out / source.name)
            print(f"wrote {', '.join(p.name for p in written)} to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
