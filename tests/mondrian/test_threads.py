"""One model used from several threads (the user guide's threading contract): predictions from many threads at once
are exact (each call has its own scratch room), and a learning call beside predictions waits for them and they for
it (a per-model guard): no crash, no wrong row, the same model as learning alone. The concurrent runs go through a
subprocess with a time limit and no core dump, so that a crash fails a test instead of the suite."""

import copy
import pickle
import resource
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
from test_hard_inputs import ONLINE

from mondrian._threads import ModelGuard, guard_of

TIME_LIMIT = 300  # seconds for one subprocess scenario (numba's cache makes them take a few seconds)
HANG_REPORT = f"import faulthandler; faulthandler.dump_traceback_later({TIME_LIMIT - 30}, exit=True)\n"


def run_isolated(code: str) -> subprocess.CompletedProcess:
    """Python code in a subprocess: no core file, a time limit; its output and exit status. A run that hangs prints
    every thread's stack before the limit (faulthandler), so that a deadlock says where it is."""

    def no_core():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return subprocess.run(
        [sys.executable, "-c", HANG_REPORT + textwrap.dedent(code)], capture_output=True, text=True, timeout=TIME_LIMIT,
        preexec_fn=no_core, cwd=Path(__file__).parent,
    )  # fmt: skip


@pytest.mark.parametrize("name", ONLINE)
def test_predictions_from_many_threads_equal_the_serial_ones(name):
    """Four threads predicting one sample at a time (in different orders) and by blocks, against the same calls
    made one after the other: equal bit for bit."""
    done = run_isolated(f"""
        import threading
        import numpy as np
        from test_hard_inputs import ONLINE, is_classifier
        rng = np.random.default_rng(1)
        X = rng.random((400, 3))
        y = rng.integers(0, 3, 400) if is_classifier({name!r}) else X[:, 0] + rng.normal(0, 0.1, 400)
        model = ONLINE[{name!r}]().fit(X, y)
        Q = rng.random((1500, 3)) * 1.2 - 0.1
        one = model.predict_proba_one if hasattr(model, "predict_proba_one") else model.predict_one
        serial = [one(q) for q in Q]
        blocks = model.predict(Q)
        found, wrong = {{}}, []
        def work(k):
            order = np.random.default_rng(k).permutation(len(Q))
            for i in order:
                if one(Q[i]) != serial[i]:
                    wrong.append((k, int(i)))
            if not np.array_equal(model.predict(Q), blocks):
                wrong.append((k, "predict"))
        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        print("wrong", len(wrong), wrong[:5])
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "wrong 0 []" in done.stdout


@pytest.mark.parametrize("name", ONLINE)
def test_learning_beside_predictions_never_crashes_and_learns_as_alone(name):
    """One thread learning sample by sample (learn_one) and by blocks (partial_fit), two threads predicting all the
    while: the process ends normally, every prediction is valid (finite; a classifier's probabilities sum to 1), and
    the model ends as one that learnt the same stream alone."""
    done = run_isolated(f"""
        import sys
        import threading
        import numpy as np
        from test_hard_inputs import ONLINE, is_classifier
        sys.setswitchinterval(1e-4)  # the learner gets the GIL back soon from the two predicting threads
        classifier = is_classifier({name!r})
        rng = np.random.default_rng(2)
        X = rng.random((900, 3))
        y = rng.integers(0, 3, 900) if classifier else X[:, 0] + rng.normal(0, 0.1, 900)
        Q = rng.random((64, 3))
        def learn(model):
            model.partial_fit(X[:300], y[:300], **({{"classes": [0, 1, 2]}} if classifier else {{}}))
            for i in range(300, 600):
                model.learn_one(X[i], y[i])
            for start in range(600, 900, 50):
                model.partial_fit(X[start:start + 50], y[start:start + 50])
        alone = ONLINE[{name!r}]()
        learn(alone)
        model = ONLINE[{name!r}]()
        learning = threading.Event()
        bad = []
        def predict(k):
            while not learning.is_set():
                pass
            while learning.is_set():
                try:
                    out = model.predict_proba(Q) if classifier else model.predict(Q)
                    q = Q[k]
                    one = model.predict_proba_one(q) if classifier else model.predict_one(q)
                except Exception as error:  # before the first learning call: not fitted
                    if "not fitted" not in str(error) and "learnt nothing" not in str(error):
                        bad.append(repr(error))
                    continue
                values = list(one.values()) if classifier else [one]
                if not np.isfinite(out).all() or not np.isfinite(values).all():
                    bad.append("not finite")
                if classifier and (not np.allclose(out.sum(axis=1), 1) or not np.isclose(sum(values), 1)):
                    bad.append("rows do not sum to 1")
        threads = [threading.Thread(target=predict, args=(k,), daemon=True) for k in range(2)]
        [t.start() for t in threads]
        learning.set()
        try:
            learn(model)
        finally:  # an error in learning ends the predictions too, and is printed
            learning.clear()
        [t.join() for t in threads]
        same = (np.array_equal(model.predict_proba(Q), alone.predict_proba(Q)) if classifier
                else np.array_equal(model.predict(Q), alone.predict(Q)))
        print("bad", len(bad), bad[:3], "same", same)
    """)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "bad 0 [] same True" in done.stdout, done.stdout


def test_the_guard_lets_readers_share_and_a_writer_run_alone():
    guard, events, inside = ModelGuard(), [], []
    guard.acquire_read()
    guard.acquire_read()  # readers share, and a reader may read again

    def writer():
        guard.acquire_write()
        inside.append("writer")
        guard.acquire_write()  # the writer's thread may learn again inside its call
        guard.acquire_read()  # and read
        guard.release_read()
        guard.release_write()
        guard.release_write()
        events.append("written")

    thread = threading.Thread(target=writer)
    thread.start()
    thread.join(0.2)
    assert inside == []  # waits for the readers in flight
    guard.release_read()
    guard.release_read()
    thread.join(5)
    assert events == ["written"]
    guard.acquire_write()
    reader = threading.Thread(target=lambda: (guard.acquire_read(), events.append("read"), guard.release_read()))
    reader.start()
    reader.join(0.2)
    assert events == ["written"]  # a reader waits while another thread learns
    guard.release_write()
    reader.join(5)
    assert events == ["written", "read"]


def test_a_model_its_copies_and_its_unpickled_twins_each_have_a_guard_of_their_own():
    model = ONLINE["amf-clf"]().fit(np.random.default_rng(0).random((50, 2)), np.arange(50) % 2)
    model.predict_one(np.array([0.5, 0.5]))
    twins = [pickle.loads(pickle.dumps(model)), copy.deepcopy(model)]
    assert not any(name.startswith("_guard") for name in vars(model))  # beside the model, not in it
    for twin in twins:
        assert twin.predict_one(np.array([0.5, 0.5])) == model.predict_one(np.array([0.5, 0.5]))
        assert guard_of(twin) is not guard_of(model)
    assert guard_of(model) is guard_of(model)


def test_a_waiting_learner_goes_before_new_readers_and_a_reader_cannot_learn_inside_its_call():
    """Readers one after the other never keep a learner waiting for ever: one arriving while a learner waits waits
    behind it (a thread already reading reads again at once)."""
    guard, events = ModelGuard(), []
    guard.acquire_read()
    writer = threading.Thread(target=lambda: (guard.acquire_write(), events.append("write"), guard.release_write()))
    writer.start()
    while not guard._waiting:
        pass
    reader = threading.Thread(target=lambda: (guard.acquire_read(), events.append("read"), guard.release_read()))
    reader.start()
    reader.join(0.2)
    guard.acquire_read()  # this thread is reading already: not held back by the learner waiting
    guard.release_read()
    assert events == []
    with pytest.raises(RuntimeError, match="cannot learn inside it"):
        guard.acquire_write()
    guard.release_read()
    writer.join(5)
    reader.join(5)
    assert events == ["write", "read"]
