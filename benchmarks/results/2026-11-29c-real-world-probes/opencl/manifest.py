"""Build the list of programs to test: programs.json = [{project, name, source, variants:[opts]}].

Each program has a list of option variants; the runner uses the first variant whose plain build
succeeds (and records original-fails if none does)."""
import ast
import glob
import json
import os
import re

H = os.path.dirname(os.path.abspath(__file__))
S = os.path.join(H, "src")
progs = []


def add(project, name, source, variants, include=None):
    progs.append(dict(project=project, name=name, source=source, variants=variants,
                      include=include))


def rd(p):
    with open(p, encoding="utf-8", errors="replace") as f:
        return f.read()


# ---------------- silx ----------------
SX = os.path.join(S, "silx/src/silx/resources/opencl")
GEN_SILX = ["-DWORKGROUP_SIZE=128", "-DWORKGROUP=128", "-DNIMAGE=4", "-DNB_COLOR=1",
            "-DIMAGE_WIDTH=64", "-DDTYPE=float", "-DIDX_DTYPE=int", "-DUSED_CONV_MODE=1",
            "-DIMAGE_DIMS=2", "-DFILTER_DIMS=2"]


def silx_read(p):
    # silx's read_cl_file: drops the lines that start with "#include "
    with open(p) as f:
        return "".join(i for i in f.readlines() if not i.startswith("#include "))


def cat(*names):
    return os.linesep.join(silx_read(os.path.join(SX, n if n.endswith(".cl") else n + ".cl"))
                           for n in names)


for p in sorted(glob.glob(SX + "/**/*.cl", recursive=True)):
    rel = os.path.relpath(p, SX)
    add("silx", rel, silx_read(p), [[], GEN_SILX], include=os.path.dirname(p))
# combinations the library builds
add("silx", "combo:image(cast,map,max_min,histogram) NB_COLOR=1",
    cat("image/cast", "image/map", "image/max_min", "image/histogram"), [["-DNB_COLOR=1"]], SX)
add("silx", "combo:image(cast,map,max_min,histogram) NB_COLOR=3",
    cat("image/cast", "image/map", "image/max_min", "image/histogram"), [["-DNB_COLOR=3"]], SX)
add("silx", "combo:medfilt", cat("preprocess", "bitonic", "medfilt"), [["-D", "NIMAGE=9"]], SX)
add("silx", "combo:statistics(doubleword,statistics)", cat("doubleword", "statistics"), [[]], SX)
add("silx", "combo:preprocess NIMAGE", cat("preprocess"), [["-D NIMAGE=16"]], SX)
add("silx", "combo:backproj tex", cat("backproj", "array_utils"), [[]], SX)
add("silx", "combo:backproj notex", cat("backproj", "array_utils"), [["-DDONT_USE_TEXTURES"]], SX)
add("silx", "combo:proj tex", cat("proj", "array_utils"), [[]], SX)
add("silx", "combo:proj notex", cat("proj", "array_utils"), [["-DDONT_USE_TEXTURES"]], SX)
for m in (0, 1, 2, 3):
    add("silx", f"combo:convolution mode={m}", cat("convolution"), [[f"-DUSED_CONV_MODE={m}"]], SX)
for idim, fdim in ((1, 1), (2, 1), (2, 2), (3, 1), (3, 3)):
    add("silx", f"combo:convolution_textures {idim}/{fdim}", cat("convolution_textures"),
        [["-DUSED_CONV_MODE=1", f"-DIMAGE_DIMS={idim}", f"-DFILTER_DIMS={fdim}"]], SX)
add("silx", "combo:sparse", cat("sparse"),
    [["-DIMAGE_WIDTH=100", "-DDTYPE=float", "-DIDX_DTYPE=int"]], SX)
sift = ["sift", "convolution", "preprocess", "algebra", "image", "gaussian", "reductions",
        "memset", "orientation_cpu", "orientation_gpu", "descriptor_gpu1", "descriptor_gpu2",
        "descriptor_cpu"]
add("silx", "combo:sift plan", cat(*["sift/" + k for k in sift]), [["-D WORKGROUP_SIZE=128"]],
    SX + "/sift")
for mk in ("matching_cpu", "matching_gpu"):
    add("silx", f"combo:sift match {mk}", cat("sift/sift", "sift/memset", "sift/" + mk),
        [["-D WORKGROUP_SIZE=64"]], SX + "/sift")
add("silx", "combo:sift alignment(transform)", cat("sift/transform"), [[]], SX + "/sift")
add("silx", "combo:sift algebra test", cat("sift/sift", "sift/algebra"), [[]], SX + "/sift")
add("silx", "combo:kahan x87", cat("kahan"), [["-DX87_VOLATILE=volatile"]], SX)
add("silx", "combo:doubleword x87", cat("doubleword"), [["-DX87_VOLATILE=volatile"]], SX)

# ---------------- gputools ----------------
GT = os.path.join(S, "gputools/gputools")
GEN_GT = ["-D", "DTYPE=float", "-D", "FS=3", "-D", "BS=5", "-D", "ADDRESSMODE=CLK_ADDRESS_CLAMP",
          "-D", "SAMPLER_FILTER=CLK_FILTER_LINEAR", "-D", "SAMPLER_ADDRESS=CLK_ADDRESS_CLAMP",
          "-D", "TYPENAME=float", "-D", "READ_IMAGE=read_imagef", "-D", "N_BINS=16",
          "-D", "RED_SIZE=16"]
mako_params = {
    "generic_separable_filter.cl": [dict(FSIZE_X=3, FSIZE_Y=3, FSIZE_Z=1, FUNC="fmax(res,val)",
                                         DEFAULT="-INFINITY", DTYPE="float"),
                                    dict(FSIZE_X=3, FSIZE_Y=5, FSIZE_Z=3, FUNC="res+val",
                                         DEFAULT="0.f", DTYPE="float")],
    "median_filter.cl": [dict(DTYPE="float", FSIZE_X=3, FSIZE_Y=3, FSIZE_Z=1, CVAL=0),
                         dict(DTYPE="float", FSIZE_X=3, FSIZE_Y=3, FSIZE_Z=3, CVAL=0)],
    "rank_downscale.cl": [dict(DTYPE="float", FSIZE_Z=0, FSIZE_X=2, FSIZE_Y=2, CVAL=0),
                          dict(DTYPE="float", FSIZE_X=2, FSIZE_Y=2, FSIZE_Z=2, CVAL=0)],
}
for p in sorted(glob.glob(GT + "/**/kernels/*.cl", recursive=True)):
    rel = os.path.relpath(p, GT)
    base = os.path.basename(p)
    txt = rd(p)
    if base in mako_params:
        from mako.template import Template
        for i, kw in enumerate(mako_params[base]):
            try:
                r = Template(txt).render(**kw)
            except Exception as e:  # noqa
                print("mako failed", rel, e)
                continue
            add("gputools", f"{rel} (mako #{i})", r, [[], ["-cl-unsafe-math-optimizations"]],
                os.path.dirname(p))
        continue
    add("gputools", rel, txt, [[], GEN_GT], os.path.dirname(p))
    if base == "convolve3.cl":
        add("gputools", rel + " SHORTTYPE", txt, [["-D", "SHORTTYPE"]], os.path.dirname(p))
    if base in ("affine.cl", "scale.cl", "map_coordinates.cl"):
        add("gputools", rel + " nearest/uchar", txt,
            [["-D", "SAMPLER_FILTER=CLK_FILTER_NEAREST", "-D", "SAMPLER_ADDRESS=CLK_ADDRESS_REPEAT",
              "-D", "TYPENAME=uchar", "-D", "READ_IMAGE=read_imageui", "-D", "DTYPE=uchar"]],
            os.path.dirname(p))

# ---------------- pyopencl examples ----------------
PX = os.path.join(S, "pyopencl/examples")
for p in sorted(glob.glob(PX + "/*.py")):
    tree = ast.parse(rd(p))
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                re.search(r"__kernel|\bkernel\s+void", node.value):
            add("pyopencl-examples", f"{os.path.basename(p)}#{n}", node.value, [[]])
            n += 1
for p in sorted(glob.glob(os.path.join(S, "pyopencl") + "/**/*.cl", recursive=True)):
    add("pyopencl-examples", os.path.relpath(p, os.path.join(S, "pyopencl")), rd(p), [[]],
        os.path.dirname(p))

# ---------------- clij (clEsperanto kernels + pyclesperanto preamble) ----------------
CJ = os.path.join(S, "clij")
pre = rd(CJ + "/preamble.cl")
ARRAY_HEADER = """
#define CONVERT_{key}_PIXEL_TYPE clij_convert_{pixel_type}_sat
#define IMAGE_{key}_PIXEL_TYPE {pixel_type}
#define POS_{key}_TYPE {pos_type}
#define POS_{key}_INSTANCE(pos0,pos1,pos2,pos3) ({pos_type}){pos}
#define IMAGE_{key}_TYPE {size_parameters} __global {pixel_type}*
#define READ_{key}_IMAGE(a,b,c) read_buffer{img_dims}d{typeId}(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c)
#define WRITE_{key}_IMAGE(a,b,c) write_buffer{img_dims}d{typeId}(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c)
"""
HEAD = """#define MAX_ARRAY_SIZE 1000
#define GET_IMAGE_WIDTH(image_key) image_size_ ## image_key ## _width
#define GET_IMAGE_HEIGHT(image_key) image_size_ ## image_key ## _height
#define GET_IMAGE_DEPTH(image_key) image_size_ ## image_key ## _depth
"""


def clij_keys(txt):
    keys = []
    for k, _ in re.findall(r"\bIMAGE_(\w+)_TYPE\s+(\w+)", txt):
        if not k.endswith("_PIXEL") and k not in keys:
            keys.append(k)
    return keys


def clij_src(txt, ndims):
    parts = [HEAD]
    for k, nd in ndims.items():
        parts.append(ARRAY_HEADER.format(
            key=k, pixel_type="float", typeId="f", pos_type="int2" if nd < 3 else "int4",
            pos=["(pos0, 0)", "(pos0, pos1)", "(pos0, pos1, pos2, 0)"][nd - 1],
            img_dims=2 if nd < 3 else 3,
            size_parameters=f"int image_size_{k}_width, int image_size_{k}_height, "
                            f"int image_size_{k}_depth, "))
    parts.append(pre)
    parts.append(txt)
    return "\n".join(parts)


import itertools  # noqa
GEN_CLIJ = ["-DSAMPLER_FILTER=CLK_FILTER_LINEAR", "-DSAMPLER_ADDRESS=CLK_ADDRESS_CLAMP",
            "-DNUMBER_OF_HISTOGRAM_BINS=256"]
for p in sorted(glob.glob(CJ + "/kernels/*.cl")):
    base = os.path.basename(p)
    txt = rd(p)
    keys = clij_keys(txt)
    if "_2d" in base:
        guess = {k: 2 for k in keys}
    elif "_3d" in base:
        guess = {k: 3 for k in keys}
    else:   # projections etc.: sources 3-D, destinations 2-D (a guess)
        guess = {k: 2 if ("dst" in k or "destination" in k) else 3 for k in keys}
    combos = [guess] + [dict(zip(keys, c)) for c in itertools.product((2, 3), repeat=len(keys))
                        ][:16]
    variants = []
    for c in combos:
        src = clij_src(txt, c)
        variants += [dict(source=src, options=[]), dict(source=src, options=GEN_CLIJ)]
    add("clij", base, variants[0]["source"], variants)

json.dump(progs, open(os.path.join(H, "programs.json"), "w"))
from collections import Counter  # noqa
print(len(progs), Counter(p["project"] for p in progs))
