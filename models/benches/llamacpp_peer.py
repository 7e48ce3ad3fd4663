"""llama.cpp's side of the models bench: prefill and decode on the same GGUF
and the same prompt tokens as AdFarm's generator, through llama-cpp-python.

Run by `cargo bench -p adfarm-models --bench models` when
ADFARM_LLAMA_CPP_PYTHON names a Python with llama-cpp-python installed;
reads the runs as JSON on stdin and prints one JSON object per run.
"""

import json
import sys
import time

import numpy as np
from llama_cpp import Llama


def main():
    job = json.load(sys.stdin)
    longest = max(len(r["tokens"]) + r["decode"] for r in job["runs"])
    llm = Llama(
        model_path=job["gguf"],
        n_ctx=longest + 16,
        n_batch=512,
        n_threads=job["threads"],
        n_threads_batch=job["threads"],
        logits_all=False,
        verbose=False,
    )
    for run in job["runs"]:
        tokens = run["tokens"]
        # Prefill alone, best of `prefill_runs`: each starts from an empty
        # cache, as AdFarm's runs start from a prompt it has not cached.
        prefill = min(timed_prefill(llm, tokens) for _ in range(run["prefill_runs"]))
        best = None
        for _ in range(run["decode_runs"]):
            timed_prefill(llm, tokens)
            steps = run["decode"] - 1
            nxt = greedy(llm)
            start = time.perf_counter()
            for _ in range(steps):
                llm.eval([nxt])
                nxt = greedy(llm)
            secs = time.perf_counter() - start
            best = secs if best is None else min(best, secs)
        print(
            json.dumps(
                {
                    "name": run["name"],
                    "prompt_tokens": len(tokens),
                    "prefill_tok_s": len(tokens) / prefill,
                    "decode_tok_s": (run["decode"] - 1) / best,
                }
            ),
            flush=True,
        )


def timed_prefill(llm, tokens):
    llm.reset()
    start = time.perf_counter()
    llm.eval(tokens)
    return time.perf_counter() - start


def greedy(llm):
    # The last position's logits, read in place (llama-cpp-python keeps no
    # copy unless every position's logits are asked for).
    logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),))
    return int(np.argmax(logits))


if __name__ == "__main__":
    main()
