"""Write Inspect AI logs of sharded, retried and stopped runs with the real inspect-ai (mockllm).

Needs inspect-ai in the environment (a throwaway venv is enough: ``python -m venv /tmp/iv &&
/tmp/iv/bin/pip install inspect-ai``); evalsite never imports it.  One four-sample task over two
epochs (``add``, ``capital``, ``spell``, ``prime``; each answer fixed by sample, epoch and run), run
five ways, each log written by inspect-ai itself:

* ``shards/part-1.eval``, ``shards/part-2.eval``: one run in two shards of disjoint samples
  (inspect-ai's ``sample_id`` filter), as a study run in parts writes it.
* ``retry/first.eval``: the whole run, in which ``spell`` raises in epoch 2 (an errored sample);
  ``retry/retry.eval``: inspect-ai's ``eval_retry`` of it, which copies every completed sample
  unchanged and runs ``spell`` epoch 2 again (it passes; its ``error_retries`` keeps the error).
* ``cancelled.eval``: the run interrupted (SIGINT) while ``spell`` runs: inspect-ai writes it with
  status ``cancelled`` and the samples it finished.
* ``error.eval``: the run with ``fail_on_error``, stopped by ``spell``'s error: status ``error``.
* ``other-model.eval``: shard 2 run by another model name (a log of another run, refused in a side).

Machine folders in tracebacks are replaced by neutral names, as ``make_inspect_logs.py`` does.
Outputs: ``tests/importers/fixtures/inspect/runs/``, and the shards and the cancelled run again in
``examples/inspect-runs/`` (the example site's ``inspect-shards`` comparison).

    /tmp/iv/bin/python scripts/make_inspect_shards.py
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from inspect_ai import Task, eval, eval_retry, task
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, TaskState, solver

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_inspect_logs import machine_folders, path_neutral  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "importers" / "fixtures" / "inspect" / "runs"
EXAMPLE = ROOT / "examples" / "inspect-runs"
EXAMPLE_LOGS = ("shards/part-1.eval", "shards/part-2.eval", "cancelled.eval")
QUESTIONS = {
    "add": ("What is 17 + 25?", "42"),
    "capital": ("What is the capital of Australia?", "Canberra"),
    "spell": ("Spell 'necessary' backwards.", "yrassecen"),
    "prime": ("Is 91 prime? yes or no.", "no"),
}
# sample id -> the answer per epoch
ANSWERS = {
    "add": ("42", "41"),
    "capital": ("Canberra", "Sydney"),
    "spell": ("yrassecen", "yrassecen"),
    "prime": ("no", "no"),
}
# How ``spell`` epoch 2 behaves in this process: "ok", "raise" (an error), "interrupt" (SIGINT).
SPELL = {"mode": "ok"}


@solver
def scripted():  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        sample_id = str(state.sample_id)
        if sample_id == "spell" and state.epoch == 2 and SPELL["mode"] == "raise":
            raise RuntimeError("scripted failure of spell in epoch 2")
        if sample_id == "spell" and state.epoch == 2 and SPELL["mode"] == "interrupt":
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(5)
        answer = ANSWERS[sample_id][state.epoch - 1]
        output = ModelOutput.from_content(model="mockllm/model", content=answer)
        output.usage = ModelUsage(input_tokens=20 + state.epoch, output_tokens=len(answer), total_tokens=30)
        model = get_model("mockllm/model", custom_outputs=[output], memoize=False)
        state.output = await model.generate(state.messages)
        state.messages.append(state.output.message)
        return state

    return solve


@task
def quiz() -> Task:
    samples = [Sample(id=key, input=text, target=target) for key, (text, target) in QUESTIONS.items()]
    return Task(dataset=samples, solver=scripted(), scorer=match(location="exact"), epochs=2)


def _run(folder: Path, *, model: str = "mockllm/model", **options: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    try:
        eval(quiz(), model=model, log_dir=str(folder), display="none", max_samples=1, **options)  # type: ignore[arg-type]
    except (Exception, KeyboardInterrupt):  # an interrupted run raises after writing its log
        pass
    (log,) = folder.glob("*.eval")
    return log


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        folders = machine_folders(work)
        logs: dict[str, Path] = {}
        logs["shards/part-1.eval"] = _run(work / "p1", sample_id=["add", "capital"])
        logs["shards/part-2.eval"] = _run(work / "p2", sample_id=["spell", "prime"])
        SPELL["mode"] = "raise"
        first = _run(work / "first", fail_on_error=False)
        logs["retry/first.eval"] = first
        SPELL["mode"] = "ok"
        (retried,) = eval_retry(str(first), log_dir=str(work / "retried"), display="none", max_samples=1)
        logs["retry/retry.eval"] = Path(retried.location)
        SPELL["mode"] = "raise"
        logs["error.eval"] = _run(work / "error", fail_on_error=True)
        SPELL["mode"] = "interrupt"
        logs["cancelled.eval"] = _run(work / "cancelled")
        SPELL["mode"] = "ok"
        other = _run(work / "other", model="mockllm/other", sample_id=["spell", "prime"])
        logs["other-model.eval"] = other
        if OUT.exists():
            shutil.rmtree(OUT)
        for name, source in logs.items():
            log: EvalLog = path_neutral(read_eval_log(str(source)), folders)
            target = OUT / name
            target.parent.mkdir(parents=True, exist_ok=True)
            write_eval_log(log, str(target), format="eval")
            text = read_eval_log(str(target)).model_dump_json()
            left = [f for f, _ in folders if f in text]
            if left:
                raise SystemExit(f"error: {name} still names {left[0]}")
            print(f"{name}: {log.status}, {len(log.samples or [])} samples")
        if EXAMPLE.exists():
            shutil.rmtree(EXAMPLE)
        for name in EXAMPLE_LOGS:
            (EXAMPLE / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(OUT / name, EXAMPLE / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
