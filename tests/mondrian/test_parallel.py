"""The thread runner behind every estimator's n_jobs: each item once, errors raised, free threads take the next item."""

import threading
import time

import pytest

from mondrian._parallel import for_each


@pytest.mark.parametrize("n_jobs", [1, 2, 3, -1])
def test_every_item_is_called_once(n_jobs):
    seen, lock = [], threading.Lock()

    def record(item):
        with lock:
            seen.append(item)

    for_each(record, list(range(25)), n_jobs)
    assert sorted(seen) == list(range(25))


def test_an_error_in_a_thread_is_raised():
    def fail_on_three(item):
        if item == 3:
            raise ValueError("item 3")

    with pytest.raises(ValueError, match="item 3"):
        for_each(fail_on_three, list(range(8)), 2)


def test_a_slow_item_does_not_hold_back_the_items_after_it():
    # Fixed shares (items 0, 2, 4, ... to one thread) would give the thread stuck on item 0 five of the ten items;
    # a thread that takes the next item left when it is free runs the other nine while item 0 sleeps.
    ran_by = {}

    def work(item):
        time.sleep(1.0 if item == 0 else 0.001)
        ran_by[item] = threading.get_ident()

    for_each(work, list(range(10)), 2)
    slow_thread = ran_by[0]
    assert sum(thread == slow_thread for thread in ran_by.values()) < 5
