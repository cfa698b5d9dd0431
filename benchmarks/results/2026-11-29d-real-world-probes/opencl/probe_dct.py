"""gputools denoise/kernels/dct_8x8.cl, dct_8x8_new.cl, dct_8x8x8.cl (helper dct_forward_threshold
/ dct_inverse with barriers). gputools ships these kernels without Python host code; they are
launched as in the original DCT-denoise host code (Zucchi's socles): for every shift (dx, dy) in
[0,8)^2 the 8x8 tile kernel accumulates into a padded accumulator (set=1 on the first shift),
then the normalise kernel writes the output image. Work-groups (8,8) / (8,8,8) as required by
reqd_work_group_size.

usage: probe_dct.py compare|bug
"""
import sys

from common import (build_both, buf, cl, compare, ctx, expect_bounds_error, mf, np, queue,
                    read, record, source)

INC = ["-I", "/work/helper_ocl/src/gputools/gputools/denoise/kernels"]
FMT = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
VARIANTS = [
    ("gputools__denoise_kernels_dct_8x8.cl", "denoise/kernels/dct_8x8.cl",
     "dct_denoise_8x8_r", "dct_denoise_normalise_r"),
    ("gputools__denoise_kernels_dct_8x8_new.cl", "denoise/kernels/dct_8x8_new.cl",
     "dct_denoise", "dct_denoise_normalise"),
]


def img2d(a):
    h, w = a.shape
    return cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, FMT, shape=(w, h), hostbuf=a)


def denoise(prg, kd, kn, img, thr, acc_shape=None, astride=None):
    h, w = img.shape
    acc_shape = acc_shape or (h + 8, w + 8)
    astride = np.int32(astride or (w + 8))
    src = img2d(img)
    acc = buf(np.zeros(acc_shape, np.float32))  # padding only accumulates (set=0)
    dst = cl.Image(ctx, mf.WRITE_ONLY, FMT, shape=(w, h))
    tile = getattr(prg, kd)
    first = True
    for dy in range(8):
        for dx in range(8):
            tile(queue, (w, h), (8, 8), src, acc, np.float32(thr), np.int32(dx), np.int32(dy),
                 astride, np.int32(1 if first else 0))
            first = False
    getattr(prg, kn)(queue, (w, h), (8, 8), acc, dst, astride)
    return acc, dst, acc_shape


def do_compare():
    rng = np.random.default_rng(3)
    for used, fname, kd, kn in VARIANTS:
        plain, checked, msgs = build_both(source(used), INC, fname)
        record(program=fname, kernel="*", builds_plain=plain is not None,
               builds_checked=checked is not None, **msgs)
        if plain is None or checked is None:
            continue
        for (h, w), thr in [((48, 64), 0.3), ((16, 24), 0.05)]:
            img = (rng.random((h, w)) + np.linspace(0, 2, w)[None, :]).astype(np.float32)
            res = []
            for prg in (plain, checked):
                acc, dst, acc_shape = denoise(prg, kd, kn, img, thr)
                a = read(acc, np.zeros(acc_shape, np.float32))
                o = np.zeros((h, w), np.float32)
                cl.enqueue_copy(queue, o, dst, origin=(0, 0), region=(w, h))
                res.append((a, o))
            queue.finish()
            record(program=fname, kernel=kd, img=(h, w), thr=thr, launches=64,
                   **compare("acc", res[0][0], res[1][0]))
            record(program=fname, kernel=kn, img=(h, w),
                   denoised_differs_from_input=bool(not np.allclose(res[0][1], img)),
                   **compare("dst image", res[0][1], res[1][1]))
    # 8x8x8: the kernel only loads local memory (its DCT calls and its store are commented
    # out), so there is no output to compare; check that both run and nothing is reported
    fname = "denoise/kernels/dct_8x8x8.cl"
    plain, checked, msgs = build_both(source("gputools__denoise_kernels_dct_8x8x8.cl"), INC,
                                      fname)
    record(program=fname, kernel="*", builds_plain=plain is not None,
           builds_checked=checked is not None, **msgs)
    if plain is not None and checked is not None:
        vol = rng.random((16, 16, 16)).astype(np.float32)
        acc_host = rng.random(16 ** 3).astype(np.float32)
        outs = []
        for prg in (plain, checked):
            src = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, FMT, shape=(16, 16, 16),
                           hostbuf=vol)
            acc = buf(acc_host)
            prg.dct_denoise(queue, (16, 16, 16), (8, 8, 8), src, acc, np.float32(0.1),
                            np.int32(0), np.int32(0), np.int32(0), np.int32(16), np.int32(256),
                            np.int32(1))
            outs.append(read(acc, acc_host))
        queue.finish()
        record(program=fname, kernel="dct_denoise", vol=(16, 16, 16), wg=(8, 8, 8),
               note="kernel writes no global memory; acc must stay as uploaded",
               acc_unchanged_plain=bool(np.array_equal(outs[0], acc_host)),
               **compare("acc", outs[0], outs[1]))


def do_bug():
    fname = "denoise/kernels/dct_8x8.cl"
    _, checked, _ = build_both(source("gputools__denoise_kernels_dct_8x8.cl"), INC, fname)
    img = np.random.default_rng(4).random((48, 64)).astype(np.float32)
    # 1) accumulator allocated the image's size, stride padded (+8) as the kernel needs
    expect_bounds_error(
        "dct_8x8.cl dct_denoise_8x8_r: acc of 48x64 (unpadded) with astride 72",
        lambda: denoise(checked, "dct_denoise_8x8_r", "dct_denoise_normalise_r", img, 0.3,
                        acc_shape=(48, 64), astride=72),
        queue.finish)
    # 2) accumulator padded by 6 instead of 7 (x, y reach w+6, h+6) with matching stride
    expect_bounds_error(
        "dct_8x8.cl dct_denoise_8x8_r: acc of 54x70 with astride 70 (padding 6, needs 7)",
        lambda: denoise(checked, "dct_denoise_8x8_r", "dct_denoise_normalise_r", img, 0.3,
                        acc_shape=(54, 70), astride=70),
        lambda: cl.enqueue_copy(queue, np.zeros(4, np.float32),
                                cl.Buffer(ctx, mf.READ_WRITE, 16)))
    # 3) a typo in the stride passed to the helper: 10 instead of DFSTRIDE (9); the failing
    # access is in dct_forward_threshold, between its barriers (the new case)
    src = source("gputools__denoise_kernels_dct_8x8.cl").replace(
        "dct_forward_threshold(ldata, ly*DFSTRIDE, ly, lx, DFSTRIDE, thr);",
        "dct_forward_threshold(ldata, ly*DFSTRIDE, ly, lx, 10, thr);")
    assert "lx, 10, thr" in src
    _, checked3, msgs = build_both(src, INC, fname)
    expect_bounds_error(
        "dct_8x8.cl (stride typo 10 for DFSTRIDE in the helper call): ldata via helper",
        lambda: denoise(checked3, "dct_denoise_8x8_r", "dct_denoise_normalise_r", img, 0.3),
        queue.finish)


if __name__ == "__main__":
    {"compare": do_compare, "bug": do_bug}[sys.argv[1]]()
