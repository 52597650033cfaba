"""Write two small Inspect AI logs with the real inspect-ai and its ``mockllm/model`` provider.

Needs inspect-ai in the environment (``.venv/bin/pip install inspect-ai``); evalsite itself never
imports it: the logs this writes are committed, and evalsite's reader parses them on its own.

Each log is one ``eval()`` run of the same five-sample task over three epochs, written by
inspect-ai as ``.eval`` (its zip of zstd-compressed members) and then converted by inspect-ai's
own ``write_eval_log`` to ``.json``, so both files hold the same run.  What the samples answer is
fixed by (sample id, epoch, side), so the outcomes are the same on every run; the run ids and
times inside the logs are inspect-ai's and change from run to run.

* ``baseline``: the reference solver.
* ``candidate``: answers more samples right, and sample ``spell`` has a *changed input* (a new
  word), so its case hash differs from the baseline's (a case-hash-mismatch row).
* In both, sample ``flaky`` raises an error in epoch 2 (an errored sample: excluded with its
  reason), and every model output carries its own usage, so mockllm never needs a tokenizer.
* In ``candidate``, sample ``capital`` keeps asking in epoch 3 until the task's ``message_limit``
  stops it: a *limit-stopped* sample, which inspect-ai still scores (its last answer, wrong).
* Two scorers: ``match`` (C/I) first, then a numeric ``closeness`` scorer (0, 0.5 or 1).

No machine path is committed: inspect-ai writes the traceback of the errored sample with the
absolute paths of the Python files involved, so every log is re-read and re-written through
inspect-ai's own ``read_eval_log``/``write_eval_log`` with those folders replaced by neutral names
(``<site-packages>``, ``<python>``, ``<repo>``), and the script checks that none remains.

Outputs: ``examples/inspect/{baseline,candidate}.{eval,json}`` and copies for the tests in
``tests/importers/fixtures/inspect/``.

    .venv/bin/python scripts/make_inspect_logs.py
"""

from __future__ import annotations

import shutil
import site
import sys
import sysconfig
import tempfile
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, Target, match, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

ROOT = Path(__file__).resolve().parent.parent
OUTPUTS = (ROOT / "examples" / "inspect", ROOT / "tests" / "importers" / "fixtures" / "inspect")

# sample id -> (input, target); ``spell`` changes on the candidate side.
QUESTIONS = {
    "add": ("What is 17 + 25? Answer with the number only.", "42"),
    "capital": ("What is the capital of Australia? One word.", "Canberra"),
    "spell": ("Spell the word 'necessary' backwards.", "yrassecen"),
    "flaky": ("Name the chemical symbol of gold.", "Au"),
    "prime": ("Is 91 a prime number? Answer yes or no.", "no"),
}
CHANGED_SPELL = ("Spell the word 'separate' backwards.", "etarapes")

# The task's message limit: a sample's messages (input, answers, follow-ups) may not pass it.
MESSAGE_LIMIT = 6
# An answer starting with LOOP keeps the conversation going (the same answer, a follow-up question)
# until the message limit stops the sample.
LOOP = "LOOP:"

# (side, sample id) -> the answer per epoch 1..3; None means the solver raises in that epoch.
ANSWERS: dict[tuple[str, str], tuple[str | None, ...]] = {
    ("baseline", "add"): ("42", "42", "41"),
    ("baseline", "capital"): ("Sydney", "Canberra", "Sydney"),
    ("baseline", "spell"): ("yrassecen", "yrasecen", "yrassecen"),
    ("baseline", "flaky"): ("Au", None, "Ag"),
    ("baseline", "prime"): ("yes", "yes", "no"),
    ("candidate", "add"): ("42", "42", "42"),
    ("candidate", "capital"): ("Canberra", "Canberra", LOOP + "Sydney"),
    ("candidate", "spell"): ("etarapes", "etarapes", "etarapes"),
    ("candidate", "flaky"): ("Au", None, "Au"),
    ("candidate", "prime"): ("no", "yes", "no"),
}


def dataset(side: str) -> list[Sample]:
    samples = []
    for sample_id, (text, target) in QUESTIONS.items():
        if side == "candidate" and sample_id == "spell":
            text, target = CHANGED_SPELL
        if sample_id == "capital":  # one sample with a chat-message input (inspect gives messages ids)
            samples.append(
                Sample(
                    id=sample_id,
                    input=[ChatMessageSystem(content="Answer briefly."), ChatMessageUser(content=text)],
                    target=target,
                    metadata={"topic": "geography"},
                )
            )
        elif sample_id == "prime":  # one multiple-choice style sample
            samples.append(Sample(id=sample_id, input=text, target=target, choices=["yes", "no"]))
        else:
            samples.append(Sample(id=sample_id, input=text, target=target, metadata={"topic": "general"}))
    return samples


@solver
def scripted(side: str):  # type: ignore[no-untyped-def]
    """Ask mockllm for the scripted answer of (side, sample, epoch); raise where the script says."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        answer = ANSWERS[(side, str(state.sample_id))][state.epoch - 1]
        if answer is None:
            raise RuntimeError(f"scripted failure of sample {state.sample_id} in epoch {state.epoch}")
        looping = answer.startswith(LOOP)
        answer = answer.removeprefix(LOOP)
        for turn in range(MESSAGE_LIMIT if looping else 1):
            if turn:  # a follow-up question; appending past the limit raises inspect-ai's limit error
                state.messages.append(ChatMessageUser(content="Are you sure? Answer again."))
            prompt_tokens = 20 + 3 * len(str(state.sample_id)) + state.epoch + 5 * turn
            usage = ModelUsage(
                input_tokens=prompt_tokens,
                output_tokens=len(answer),
                total_tokens=prompt_tokens + len(answer) + 8,
                input_tokens_cache_read=8,
            )
            output = ModelOutput.from_content(model="mockllm/model", content=answer)
            output.usage = usage
            model = get_model("mockllm/model", custom_outputs=[output], memoize=False)
            state.output = await model.generate(state.messages)
            state.messages.append(state.output.message)
        return state

    return solve


@scorer(metrics=[mean()])
def closeness():  # type: ignore[no-untyped-def]
    """1 for an exact answer, 0.5 when the answer shares its first letter, else 0."""

    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion.strip().lower()
        expected = target.text.strip().lower()
        value = 1.0 if answer == expected else 0.5 if answer[:1] == expected[:1] else 0.0
        return Score(value=value, answer=answer)

    return score


def run(side: str, folder: Path) -> Path:
    task = Task(
        name="quiz",
        dataset=dataset(side),
        solver=scripted(side),
        scorer=[match(location="exact"), closeness()],
        epochs=3,
        message_limit=MESSAGE_LIMIT,
    )
    (log,) = eval(
        task,
        model="mockllm/model",
        log_dir=str(folder / side),
        log_format="eval",
        fail_on_error=False,
        max_samples=1,
        display="none",
        log_samples=True,
    )
    return Path(log.location)


def machine_folders(tmp: Path) -> list[tuple[str, str]]:
    """The absolute folders a traceback may name, longest first, each with its neutral name."""
    folders = [(p, "<site-packages>") for p in [*site.getsitepackages(), site.getusersitepackages()]]
    folders += [(sysconfig.get_paths()["stdlib"], "<python>"), (sys.prefix, "<python>")]
    folders += [(sys.base_prefix, "<python>"), (str(ROOT), "<repo>"), (str(tmp), "<tmp>")]
    folders += [(str(Path.home()), "~")]
    return sorted({(str(Path(p)), name) for p, name in folders if p and p != "/"}, key=lambda f: -len(f[0]))


def path_neutral(log: EvalLog, folders: list[tuple[str, str]]) -> EvalLog:
    """The log with every machine folder replaced by its neutral name (tracebacks, events, anywhere)."""
    text = log.model_dump_json()
    for folder, name in folders:
        text = text.replace(folder, name)
    return EvalLog.model_validate_json(text)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        folders = machine_folders(folder)
        written: dict[str, Path] = {}
        for side in ("baseline", "candidate"):
            log = path_neutral(read_eval_log(str(run(side, folder))), folders)
            for fmt in ("eval", "json"):
                path = folder / f"{side}.{fmt}"
                write_eval_log(log, str(path), format=fmt)
                written[path.name] = path
        for path in written.values():
            readback = read_eval_log(str(path)).model_dump_json()
            left = [f for f, _ in folders if f in readback]
            if left:
                raise SystemExit(f"error: {path.name} still names {left[0]}")
        for out in OUTPUTS:
            out.mkdir(parents=True, exist_ok=True)
            for name, source in written.items():
                shutil.copyfile(source, out / name)
            print(f"wrote {', '.join(sorted(written))} to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
