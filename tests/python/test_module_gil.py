"""Every call of the Python module that takes time releases the GIL: while a thread runs it, the
main thread keeps executing Python. A deterministic check, not a timing ratio: the worker reads
the main thread's counter right before and right after the call; with the GIL held through the
call nothing else runs in between, so the counter would not move; released, it advances many
times. The switch interval is set far longer than any call here, so the worker cannot be made to
drop the GIL in the few bytecodes around the call, even when the OS deschedules it there for a
while (a busy machine did that to the earlier 0.5 s interval). So that nobody waits for that
interval, the main thread waits for the worker to start (an Event, which releases the GIL) and
then hands the GIL over every 100 steps (time.sleep(0)), letting the worker take it back at once
when its call returns.

Run: /usr/bin/python3 -m pytest -q tests/python/test_module_gil.py"""

import os
import sys
import threading
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402

# Each call checked below runs for 0.2 s or more, so that even on a busy machine the main thread
# gets the CPU long enough to count this many steps (a 64-byte generate, 30 ms, sometimes did not).
MIN_STEPS = 1000


@pytest.fixture(autouse=True)
def long_switch_interval():
    old = sys.getswitchinterval()
    sys.setswitchinterval(30.0)
    yield
    sys.setswitchinterval(old)


def steps_during(call):
    """How many times the main thread's loop ran while `call` ran in another thread."""
    counter = [0]
    seen = {}
    started, done = threading.Event(), threading.Event()

    def worker():
        try:
            started.set()
            seen["before"] = counter[0]
            seen["result"] = call()
            seen["after"] = counter[0]
        except BaseException as e:  # reported by the main thread
            seen["error"] = e
        finally:
            done.set()

    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    while not done.is_set():
        counter[0] += 1
        if counter[0] % 100 == 0:
            time.sleep(0)  # releases the GIL: the worker takes it back at once when it waits
    t.join()
    if "error" in seen:
        raise seen["error"]
    return seen["after"] - seen["before"]


def big_python(size):
    path = "/usr/lib/python3.11/typing.py"
    text = open(path, encoding="utf-8").read()
    return (text * (size // len(text) + 1))[:size]


CODE = big_python(2_000_000)


def test_the_check_sees_a_call_that_holds_the_gil():
    # builtin sum over a range runs in C with the GIL held throughout: the counter stands still.
    assert steps_during(lambda: sum(range(3 * 10**7))) == 0


def test_analyze_releases_the_gil():
    assert steps_during(lambda: hirope.analyze(CODE, language="python",
                                               tokenizer="cl100k")) >= MIN_STEPS


def test_encode_and_encode_batch_release_the_gil():
    t = hirope.load_tokenizer("llama3")
    assert steps_during(lambda: t.encode(CODE)) >= MIN_STEPS
    assert steps_during(lambda: t.encode_batch([CODE[:500_000]] * 4)) >= MIN_STEPS


def test_parse_releases_the_gil():
    assert steps_during(lambda: hirope.parse(CODE, "python")) >= MIN_STEPS


def test_attention_and_rotate_release_the_gil():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2048, 128)).astype(np.float32)
    assert steps_during(lambda: hirope.attention(q, q, heads=2, scheme="rope")) >= MIN_STEPS
    x = rng.standard_normal((65536, 256)).astype(np.float32)
    assert steps_during(lambda: hirope.rotate(x, scheme="xpos")) >= MIN_STEPS


def test_model_loss_and_generate_release_the_gil():
    m = hirope.Model.load("pybyte")
    text = CODE[:4000]
    assert steps_during(lambda: m.loss(text, scheme={"type": "hirope"})) >= MIN_STEPS
    assert steps_during(lambda: m.generate("def f(", max_bytes=1024, temperature=0)) >= MIN_STEPS


def test_threads_share_a_tokenizer():
    t = hirope.load_tokenizer("cl100k")
    texts = [CODE[i * 50_000:(i + 1) * 50_000] for i in range(8)]
    want = [t.encode(x).tolist() for x in texts]
    got = [None] * len(texts)

    def run(i):
        got[i] = t.encode(texts[i]).tolist()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(texts))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert got == want
