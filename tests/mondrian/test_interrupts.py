"""Interrupts during learning (the user guide's contract): a KeyboardInterrupt at a random point of a long learning call
leaves the model exactly as before the call (its pickled state, byte for byte), a short call (learn_one) is either
not started or whole, and the next calls learn as if nothing had happened, on every online estimator, BSP's point
store included. The interrupts come from a timer thread (SIGINT to the process), in a subprocess with a time limit:
a crash fails a test, not the suite."""

import signal
import threading

import pytest
from estimators import FAMILIES, ONLINE, family_case
from test_threads import run_isolated

from mondrian._interrupts import interrupts_deferred, rollback_ready, safe_point

# SIGINT to this process after a delay, only while the watched call runs: ``interrupted(work, delay)`` returns
# "raised" (KeyboardInterrupt out of the call), "late" (sent during the call, raised just after it returned: the call
# had finished) or "not sent" (the call ended first).
INTERRUPTER = """
import os, signal, threading, time

# SIGINT raising KeyboardInterrupt, as in a terminal's command: a suite started in the background (`make test &`,
# nohup) runs with SIGINT ignored, which a subprocess inherits
signal.signal(signal.SIGINT, signal.default_int_handler)

def interrupted(work, delay):
    lock, running = threading.Lock(), [True]

    def fire():
        with lock:
            if running[0]:
                os.kill(os.getpid(), signal.SIGINT)
                running.append("sent")

    timer = threading.Timer(delay, fire)
    timer.start()
    try:
        work()
        outcome = "not sent"
    except KeyboardInterrupt:
        outcome = "raised"
    try:
        with lock:
            running[0] = False
        timer.join()
        time.sleep(0.02)  # a signal sent just before the call returned arrives here
    except KeyboardInterrupt:
        outcome = "late"
    return outcome
"""

LONG_CALL = (
    INTERRUPTER
    + """
import pickle
import numpy as np
from estimators import ONLINE, is_classifier
name, kind = {name!r}, {kind!r}
classifier = is_classifier(name)
rng = np.random.default_rng(3)
X = rng.random((300 + 200 + 160_000, 3))
y = rng.integers(0, 3, len(X)) if classifier else X[:, 0] + rng.normal(0, 0.1, len(X))

def started():
    model = ONLINE[name]()
    if kind == "fit-again":
        return model.fit(X[:300], y[:300])
    return model.partial_fit(X[:300], y[:300], **({{"classes": [0, 1, 2]}} if classifier else {{}}))

def long_call(model, n):
    rows = slice(500, 500 + n)
    if kind == "fit-again":
        return model.fit(X[rows], y[rows])
    if kind == "progressive":
        progressive = model.progressive_predict_proba if classifier else model.progressive_predict
        return progressive(X[rows], y[rows])
    return model.partial_fit(X[rows], y[rows])

def timed(n):
    model = started()
    t0 = time.perf_counter()
    long_call(model, n)
    return time.perf_counter() - t0, model

long_call(started(), 100)  # compiled (or loaded from numba's cache) before anything is timed
n_long = 10_000
while (duration := timed(n_long)[0]) < 0.4 and n_long < 160_000:
    n_long *= 2  # a call long enough for interrupts at random points of it
duration, twin = timed(n_long)
before, whole = pickle.dumps(started()), pickle.dumps(twin)
continued = {{
    "as before": pickle.dumps(started().partial_fit(X[300:500], y[300:500])),
    "whole": pickle.dumps(twin.partial_fit(X[300:500], y[300:500])),
}}
outcomes = []
for run in range({runs}):
    model = started()
    delay = np.random.default_rng(run).uniform(0.05, 0.8) * duration
    outcome = interrupted(lambda: long_call(model, n_long), delay)
    state = pickle.dumps(model)
    found = "as before" if state == before else "whole" if state == whole else "CHANGED"
    model.partial_fit(X[300:500], y[300:500])
    same = pickle.dumps(model) == continued.get(found)
    outcomes.append(f"{{outcome}}, {{found}}, {{'continues' if same else 'CONTINUES OTHERWISE'}}")
print("rows", n_long, "duration", round(duration, 3))
print("outcomes", outcomes)
"""
)


# fit learns into new trees, dropped on failure, the same way for every forest: one estimator in make test, one per
# kernel family in make test-slow
FIT_AGAIN = [
    pytest.param(name, "fit-again", id=f"{name}-fit-again", marks=() if name == "mf-clf" else pytest.mark.slow)
    for name in FAMILIES
]
LONG_CALLS = [family_case(name, kind) for kind in ("partial_fit", "progressive") for name in ONLINE]
STREAMS = [family_case(name) for name in ONLINE]


@pytest.mark.subprocess
@pytest.mark.parametrize(("name", "kind"), LONG_CALLS + FIT_AGAIN)
def test_an_interrupt_anywhere_in_a_long_call_leaves_the_model_as_before(name, kind):
    """Interrupts at random points of a long call (a model that learnt 300 rows learning 10,000 more, doubled until
    they take 0.4 s): each raises KeyboardInterrupt with the model's pickled state equal to the one before the call,
    and the next partial_fit gives the model an uninterrupted run gives. An interrupt that comes as the call ends
    may find it whole (then the model is the one the call completed)."""
    if kind == "progressive" and "orf" in name:
        pytest.skip("ORF has no progressive validation")
    done = run_isolated(LONG_CALL.format(name=name, kind=kind, runs=3))
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    outcomes = eval(done.stdout.split("outcomes ", 1)[1])
    allowed = ("raised, as before, continues", "late, whole, continues", "not sent, whole, continues")
    assert all(outcome in allowed for outcome in outcomes), done.stdout
    assert outcomes.count("raised, as before, continues") >= 2, done.stdout


SHORT_CALLS = (
    INTERRUPTER
    + """
import pickle
import numpy as np
from estimators import ONLINE, is_classifier
name = {name!r}
classifier = is_classifier(name)
rng = np.random.default_rng(4)
X = rng.random((300 + 64_000, 3))
y = rng.integers(0, 3, len(X)) if classifier else X[:, 0] + rng.normal(0, 0.1, len(X))

def learnt(k):  # a model that learnt the first 300 rows, then the stream's first k samples one by one
    model = ONLINE[name]().partial_fit(X[:300], y[:300], **({{"classes": [0, 1, 2]}} if classifier else {{}}))
    for i in range(300, 300 + k):
        model.learn_one(X[i], y[i])
    return model

learnt(1)  # the one-sample kernels compiled (or loaded from numba's cache) before anything is timed
n = 500
while True:  # a stream long enough for interrupts at random points of it
    t0 = time.perf_counter()
    whole = pickle.dumps(learnt(n))
    duration = time.perf_counter() - t0
    if duration >= 0.3 or n >= 64_000:
        break
    n *= 2
outcomes = []
for run in range({runs}):
    model, at = learnt(0), [300]

    def stream():
        for at[0] in range(300, 300 + n):
            model.learn_one(X[at[0]], y[at[0]])

    outcome = interrupted(stream, np.random.default_rng(run).uniform(0.05, 0.8) * duration)
    state, k = pickle.dumps(model), at[0] - 300  # at[0]: the sample whose call was interrupted
    found = "not started" if state == pickle.dumps(learnt(k)) else "CHANGED"
    found = "whole" if found == "CHANGED" and state == pickle.dumps(learnt(k + 1)) else found
    if outcome != "not sent":
        for j in range(300 + k + (found == "whole"), 300 + n):
            model.learn_one(X[j], y[j])
    same = pickle.dumps(model) == whole
    outcomes.append(f"{{outcome}}, {{found}}, {{'continues' if same else 'CONTINUES OTHERWISE'}}")
print("stream", n, "duration", round(duration, 3))
print("outcomes", outcomes)
"""
)


@pytest.mark.subprocess
@pytest.mark.parametrize("name", STREAMS)
def test_an_interrupt_in_a_stream_of_learn_one_calls_leaves_a_whole_model(name):
    """Interrupts at random points of a learn_one loop (500 samples, doubled until they take 0.3 s): the
    interrupted call either learnt nothing or its whole sample (the model equals one that learnt the stream up to
    there), and learning the rest of the stream gives the model an uninterrupted run gives."""
    done = run_isolated(SHORT_CALLS.format(name=name, runs=4))
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    outcomes = eval(done.stdout.split("outcomes ", 1)[1])
    for outcome in outcomes:
        assert outcome.endswith(("not started, continues", "whole, continues")), done.stdout
    assert sum(outcome.startswith("raised") for outcome in outcomes) >= 2, done.stdout


@pytest.fixture
def sigint_raises():
    """SIGINT raising KeyboardInterrupt in this process, as in a terminal's command (a suite started in the background
    runs with it ignored), for the test; the handler before it restored after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("sigint_raises")
def test_the_deferral_delivers_an_interrupt_at_the_end_or_at_a_safe_point_and_restores_the_handler():
    """Unit test of the mechanism, in the main thread: an interrupt during a deferred block is raised when the block
    ends (after all of it ran); with rollback ready, at the next safe point; a handler that does not raise lets the
    block go on; outside, SIGINT's handler is the one before."""
    handler = signal.getsignal(signal.SIGINT)
    ran = []
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        signal.raise_signal(signal.SIGINT)
        ran.append("after the interrupt")
    assert ran == ["after the interrupt"]
    assert signal.getsignal(signal.SIGINT) is handler
    with pytest.raises(KeyboardInterrupt), interrupts_deferred(), rollback_ready():
        signal.raise_signal(signal.SIGINT)
        ran.append("before the safe point")
        safe_point()
        ran.append("after the safe point")
    assert ran[-1] == "before the safe point"
    heard = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: heard.append(signum))
    try:
        with interrupts_deferred(), rollback_ready():
            signal.raise_signal(signal.SIGINT)
            safe_point()
            ran.append("went on")
        assert heard == [signal.SIGINT] and ran[-1] == "went on"
    finally:
        signal.signal(signal.SIGINT, previous)


def test_the_deferral_is_a_no_op_outside_the_main_thread():
    handler = signal.getsignal(signal.SIGINT)
    seen = []

    def work():
        with interrupts_deferred(), rollback_ready():
            seen.append(signal.getsignal(signal.SIGINT) is handler)
            safe_point()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [True]
