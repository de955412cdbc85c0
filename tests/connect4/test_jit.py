"""The kernel decorator: identities are stable, and change with code or callees."""

import numpy as np

from connect4.jit import fingerprint, kernel


def _make(offset, body_variant=0):
    @kernel("t")
    def inner(x):
        return x + offset

    if body_variant == 0:
        @kernel("t")
        def outer(x):
            return inner(x) * 2
    else:
        @kernel("t")
        def outer(x):
            return inner(x) * 3

    return inner, outer


def test_identity_is_stable_and_content_derived():
    a_inner, a_outer = _make(1)
    b_inner, b_outer = _make(1)
    assert a_inner._uuid == b_inner._uuid and a_outer._uuid == b_outer._uuid
    c_inner, c_outer = _make(2)
    # a callee closing over another constant changes the caller's identity too
    assert c_inner._uuid != a_inner._uuid and c_outer._uuid != a_outer._uuid
    _, d_outer = _make(1, body_variant=1)
    assert d_outer._uuid != a_outer._uuid
    assert a_outer(np.int64(1)) == 4 and d_outer(np.int64(1)) == 6


def test_fingerprint_sees_arrays():
    def f():
        return table

    table = np.arange(3)
    first = fingerprint(f)
    table = np.arange(4)
    assert fingerprint(f) != first


def test_recursive_kernels_and_per_tag_names():
    def make(tag):
        @kernel(tag)
        def fact(n):
            if n <= 1:
                return 1
            return n * fact(n - 1)

        return fact

    a, b = make("7x6k4"), make("5x4k3")
    assert a(5) == 120 and b(4) == 24
    assert a.py_func.__qualname__.endswith("__7x6k4") and a._uuid != b._uuid
