"""The single-file store `safekern.cache.Cache`: its API, file layout and eviction."""
import os
import stat
import struct
import time

import pytest

from tests.support.cache_helpers import fresh_cache_warnings, key, payload  # noqa: F401
from safekern.cache import Cache, store
from safekern.cache import format as fmt


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "store.cache")


def test_put_get_len_contains(path):
    c = Cache(path)
    assert len(c) == 0 and c.get(b"a") is None and b"a" not in c
    assert c.put(b"a", b"first") and c.put(b"b", b"", {"kernel": "k"})
    assert c.get(b"a") == b"first" and c.get(b"b") == b""
    assert b"a" in c and b"b" in c and b"c" not in c
    assert len(c) == 2
    assert c.put(b"a", b"second")                 # replace: the last record wins
    assert c.get(b"a") == b"second" and len(c) == 2


def test_file_is_created_0600_with_a_header(path):
    Cache(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path, "rb") as f:
        head = f.read()
    assert len(head) == fmt.HEADER_SIZE and head.startswith(b"SKCACHE\x00")
    assert fmt.parse_file_header(head).version == fmt.FORMAT_VERSION


def test_missing_directories_are_created_0700(tmp_path):
    path = tmp_path / "a" / "b" / "c.cache"
    assert Cache(str(path)).put(b"k", b"v")
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "b").st_mode) == 0o700


def test_replace_false_keeps_the_first(path):
    c = Cache(path)
    assert c.put(b"k", b"one", replace=False) and c.put(b"k", b"two", replace=False)
    assert c.get(b"k") == b"one"
    assert Cache(path).verify().records == 1


def test_delete_appends_a_tombstone_seen_by_other_readers(path):
    a, b = Cache(path), Cache(path)
    a.put(b"k", b"v")
    assert b.get(b"k") == b"v"
    assert a.delete(b"k") and a.get(b"k") is None
    assert b.get(b"k") is None and len(b) == 0
    report = Cache(path).verify()
    assert report.ok and report.records == 2 and report.live == 0 and report.dead == 2


def test_other_instances_see_appends_incrementally(path):
    writer, reader = Cache(path), Cache(path)
    for i in range(20):
        writer.put(key(i), payload(i))
        assert reader.get(key(i)) == payload(i)     # read only what was appended
    assert len(reader) == 20


def test_keys_and_payloads_are_bytes_of_any_content(path):
    c = Cache(path)
    big = payload("big", size=3 << 20)
    keys_ = [b"", b"\x00" * 1000, "ключ".encode(), bytes(range(256))]
    for i, k in enumerate(keys_):
        assert c.put(k, big if i == 0 else k * 3)
    fresh = Cache(path)
    assert fresh.get(b"") == big
    for k in keys_[1:]:
        assert fresh.get(k) == k * 3


def test_entries_list_metadata_sizes_and_times(path):
    c = Cache(path)
    before = int(time.time())
    c.put(b"k1", b"x" * 100, {"kernel": "stencil", "backend": "opencl", "device": "cpu"})
    c.put(b"k2", b"y" * 7)
    entries = Cache(path).entries()
    assert [e.payload_size for e in entries] == [100, 7]
    first = entries[0]
    assert first.meta == {"kernel": "stencil", "backend": "opencl", "device": "cpu"}
    assert first.key_size == 2 and first.digest == __import__("hashlib").sha256(b"k1").hexdigest()
    assert before <= first.created <= first.last_used <= time.time() + 1
    assert first.record_size == fmt.record_length(2, len(b'{"backend": "opencl", "device": '
                                                         b'"cpu", "kernel": "stencil"}'), 100)
    assert Cache(path).read_key(first) == b"k1"


def test_clear_starts_a_new_generation(path):
    a, b = Cache(path), Cache(path)
    a.put(b"k", b"v")
    assert b.get(b"k") == b"v"
    generation = b.generation
    assert a.clear()
    assert b.get(b"k") is None and len(b) == 0
    assert b.generation != generation and os.path.getsize(path) == fmt.HEADER_SIZE


def test_a_digest_collision_is_a_miss(path, monkeypatch):
    from safekern.cache import reading

    for module in (store, reading):          # writing and reading hash keys alike
        monkeypatch.setattr(module, "_key_digest", lambda k: b"\x01" * 32)
    c = Cache(path)
    c.put(b"one", b"payload of one")
    assert c.get(b"two") is None and b"two" not in c
    assert c.get(b"one") == b"payload of one"


def test_readonly_never_writes(path, tmp_path):
    Cache(path).put(b"k", b"v")
    os.utime(path, ns=(1, 1))
    before = os.stat(path)
    listing = sorted(os.listdir(tmp_path))
    c = Cache(path, readonly=True)
    c.touch_interval = 0
    assert c.get(b"k") == b"v"
    assert not c.put(b"k2", b"v2") and not c.delete(b"k") and not c.clear()
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert sorted(os.listdir(tmp_path)) == listing
    Cache(str(tmp_path / "missing.cache"), readonly=True)
    assert not os.path.exists(tmp_path / "missing.cache")


def test_last_use_is_recorded_in_place(path):
    c = Cache(path)
    c.put(b"k", b"v")
    (entry,) = c.entries()
    with open(path, "r+b") as f:       # pretend the entry was last used long ago
        f.seek(entry.offset + fmt.LAST_USED_OFFSET)
        f.write(struct.pack("<q", 1000))
    size = os.path.getsize(path)
    reader = Cache(path)
    assert reader.get(b"k") == b"v"
    assert Cache(path).entries()[0].last_used >= entry.created
    assert os.path.getsize(path) == size and Cache(path).verify().ok


def test_eviction_keeps_recent_entries_within_half_the_bound(path):
    bound = 64 * 1024
    c = Cache(path, max_bytes=bound)
    c.touch_interval = 0
    record = fmt.record_length(len(key(0)), 2, 1000)
    n = bound // record                       # fills the file just under the bound
    for i in range(n):
        assert c.put(key(i), payload(i, size=1000))
    assert len(c) == n
    # Use the first ten again, later than the others, so they survive eviction.
    time.sleep(1.05)
    for i in range(10):
        assert c.get(key(i)) == payload(i, size=1000)
    assert c.put(key("new"), payload("new", size=1000))
    size = os.path.getsize(path)
    assert size <= bound // 2
    survivors = {i for i in range(n) if c.get(key(i)) is not None}
    assert set(range(10)) <= survivors and len(survivors) < n - 10
    assert c.get(key("new")) == payload("new", size=1000)
    assert Cache(path).verify().ok


def test_the_bound_always_holds_and_oversized_records_are_refused(path):
    bound = 20000
    c = Cache(path, max_bytes=bound)
    for i in range(300):
        c.put(key(i), payload(i, max_size=3000))
        assert os.path.getsize(path) <= bound
    assert not c.put(b"huge", bytes(bound))
    assert c.get(b"huge") is None and os.path.getsize(path) <= bound


def test_compaction_drops_dead_records_and_leaves_no_temp_files(path, tmp_path):
    c = Cache(path, max_bytes=50000)
    for round_ in range(20):
        for i in range(5):
            c.put(key(i), payload(i, round_, size=1000))
    assert os.path.getsize(path) <= 50000
    for i in range(5):
        assert c.get(key(i)) == payload(i, 19, size=1000)
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


def test_a_replaced_file_is_noticed_by_readers(path, tmp_path):
    a = Cache(path)
    a.put(b"k", b"old")
    reader = Cache(path)
    assert reader.get(b"k") == b"old"
    other = str(tmp_path / "other.cache")
    Cache(other).put(b"k", b"new")
    os.replace(other, path)
    assert reader.get(b"k") == b"new"


def test_stale_temp_files_of_a_dead_writer_are_removed(path, tmp_path):
    Cache(path, max_bytes=10000)
    stale = tmp_path / ".store.cache.abc123.tmp"
    stale.write_bytes(b"half a compaction")
    c = Cache(path, max_bytes=10000)
    for i in range(40):
        c.put(key(i), payload(i, size=500))
    assert not stale.exists()


def test_threads_share_one_store(path):
    import threading

    c = Cache(path)
    errors = []

    def work(t):
        for i in range(50):
            c.put(key(t, i), payload(t, i))
            got = c.get(key((t + 1) % 4, i))
            if got is not None and got != payload((t + 1) % 4, i):
                errors.append((t, i))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    fresh = Cache(path)
    assert len(fresh) == 200
    assert all(fresh.get(key(t, i)) == payload(t, i) for t in range(4) for i in range(50))
