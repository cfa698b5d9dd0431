"""safekern.sync() waits for plain launches through the backend's own synchronise call, which is
itself a hooked sync point (CuPy's Device.synchronize): while a checked launch is pending, that
inner sync point must not call sync() again (it recursed without end on an H100: every CuPy GPU
test after a plain launch failed with RecursionError)."""
from safekern import runtime
from safekern.runtime import BUFFER_LEN, FailureSource


class _CleanBuffer(FailureSource):
    def synchronize(self):
        pass

    def read(self):
        return [0] * BUFFER_LEN

    def reset(self):
        pass


def test_a_plain_launch_waited_for_inside_sync_does_not_reenter_it(no_pending_failure):
    calls = []

    def library_synchronize(target):        # a backend's _plain_sync: the library's own sync,
        calls.append(target)                # which the sync-point hook follows with sync_point()
        assert len(calls) < 5, "sync() re-entered itself through the plain launch's sync"
        runtime.sync_point(target)

    source = _CleanBuffer()
    source.mark_launched()                  # a checked launch is pending
    runtime.plain_launched(library_synchronize)
    runtime.sync()
    assert calls == [None]
    assert not runtime.pending_sources()
