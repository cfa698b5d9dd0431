"""Extract run-time-compiled CUDA C sources from mirrored public repos into sources/.

sources/index.json: {id: {project, repo, commit, path, var, options, name_expressions, note}}
"""
import ast
import hashlib
import json
import os
import re
import subprocess
import sys
from string import Template

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sources")
M = "/work/.mirror"


def git(gd, *args):
    return subprocess.run(["git", "--git-dir", gd, *args], capture_output=True, text=True,
                          check=True).stdout


def show(gd, commit, path):
    return git(gd, "show", f"{commit}:{path}")


def ls(gd, commit):
    return git(gd, "ls-tree", "-r", commit, "--name-only").splitlines()


index = {}
seen = set()
skipped = []


def add(project, gd, commit, path, var, code, options=("--std=c++17",), exprs=(), note=""):
    key = hashlib.sha1((code + "\0".join(options)).encode()).hexdigest()[:10]
    if key in seen:
        return
    seen.add(key)
    base = re.sub(r"[^A-Za-z0-9_]+", "_", os.path.basename(path).rsplit(".", 1)[0])
    sid = f"{project}__{base}__{var}__{key[:6]}.cu"
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, sid), "w") as f:
        f.write(code)
    index[sid] = dict(project=project, repo=gd.split("/")[3].replace("+", "/"),
                      commit=commit, path=path, var=var, options=list(options),
                      name_expressions=list(exprs), note=note)


# ---- plausible values for string.Template / {{x}} placeholders ------------------------------
def value_for(name):
    n = name.lower()
    if n in ("dtype", "type", "datatype", "t", "data_type", "ctype", "float_t", "scalar_t"):
        return "float"
    if "complex" in n:
        return "complex<float>"
    if "type" in n:
        return "float"
    if "pad" in n:
        return "1"
    if "stride" in n or "dilation" in n:
        return "1"
    if n in ("n", "nthreads", "num"):
        return "1024"
    return "8"


FORMAT_DEFAULTS = {"kernel_name": "kern", "block_size": "128", "ndim": "2", "axis": "1",
                   "extents": "int, cuda::std::dynamic_extent, cuda::std::dynamic_extent",
                   "layout": "layout_right", "body": "", "struct_definition": ""}


def subst_template(code):
    """string.Template placeholders (${x} / $x) -> plausible values."""
    names = set(re.findall(r"\$\{(\w+)\}", code)) | set(re.findall(r"\$(\w+)", code))
    if not names:
        return code, {}
    vals = {n: value_for(n) for n in names}
    return Template(code).safe_substitute(vals), vals


def py_strings(text):
    """(var, string) for every str constant holding __global__; f-strings reported."""
    tree = ast.parse(text)
    out, fstr = [], 0
    parents = {}
    for node in ast.walk(tree):
        for ch in ast.iter_child_nodes(node):
            parents[ch] = node
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            s = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            if "__global__" in s:
                fstr += 1
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and "__global__" in node.value and not isinstance(parents.get(node), ast.JoinedStr):
            p = parents.get(node)
            var = f"L{node.lineno}"
            gp = parents.get(p)
            if isinstance(p, ast.Attribute) and p.attr == "format" and isinstance(gp, ast.Call):
                out.append((f"fmt{node.lineno}", ("format", node.value, gp)))
                continue
            if isinstance(p, ast.Assign) and isinstance(p.targets[0], ast.Name):
                var = p.targets[0].id
            out.append((var, node.value))
    return out, fstr


def from_python(project, gd, commit, path, extra_opts=(), transform=None):
    text = show(gd, commit, path)
    try:
        strings, fstr = py_strings(text)
    except SyntaxError:  # .pyx: fall back to triple-quoted literals
        strings, fstr = [], 0
        for m in re.finditer(r"(?:r|)('''|\"\"\")(.*?)\1", text, re.S):
            if "__global__" in m.group(2):
                strings.append((f"L{text[:m.start()].count(chr(10)) + 1}", m.group(2)))
    if fstr:
        skipped.append(f"{project} {path}: {fstr} f-string kernel(s) skipped")
    consts = {}
    try:
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
                consts.setdefault(n.targets[0].id, n.value.value)
    except SyntaxError:
        pass
    for var, code in strings:
        note = ""
        if isinstance(code, tuple):           # "...".format(...)
            _, fmt, call = code
            kw = {}
            for k in call.keywords:
                if isinstance(k.value, ast.Constant):
                    kw[k.arg] = str(k.value.value)
                elif isinstance(k.value, ast.Name) and k.value.id in consts:
                    kw[k.arg] = consts[k.value.id]
            class D(dict):
                def __missing__(self, key):
                    return FORMAT_DEFAULTS.get(key, value_for(key))
            if call.args:
                skipped.append(f"{project} {path}:{var}: positional .format skipped")
                continue
            try:
                code = fmt.format_map(D(kw))
            except Exception as e:
                skipped.append(f"{project} {path}:{var}: .format failed {e!r}")
                continue
            note = "format: " + ",".join(sorted(set(re.findall(r"(?<!\{)\{(\w+)\}", fmt))))
        elif "${" in code and project == "cupy" and path.startswith("cupy/_core/"):
            skipped.append(f"{project} {path}:{var}: CuPy-internal code-generator template skipped")
            continue
        elif "${" in code and project == "cusignal":
            for dt, hdr in (("float", ""), ("complex<float>", "#include <cupy/complex.cuh>")):
                vals = {"datatype": dt, "header": hdr, "flag": "1"}
                add(project, gd, commit, path, var, Template(code).safe_substitute(vals),
                    ("--std=c++17",) + tuple(extra_opts), note=f"Template datatype={dt}")
            continue
        if transform:
            code, note = transform(code)
        else:
            code, vals = subst_template(code)
            if vals:
                note = "Template: " + ",".join(f"{k}={v}" for k, v in sorted(vals.items()))
        add(project, gd, commit, path, var, code, ("--std=c++17",) + tuple(extra_opts), note=note)


def from_rst(project, gd, commit, path):
    text = show(gd, commit, path)
    for m in re.finditer(r"r?('''|\"\"\")(.*?)\1", text, re.S):
        if "__global__" in m.group(2):
            code = re.sub(r"^ {3,}", "", m.group(2), flags=re.M)  # doc indentation harmless anyway
            add(project, gd, commit, path, f"L{text[:m.start()].count(chr(10)) + 1}", m.group(2))


def from_cu(project, gd, commit, path, prefix="", options=("--std=c++17",), exprs=()):
    add(project, gd, commit, path, "file", prefix + show(gd, commit, path), options, exprs)


# ---- sniklaus-style {{type}} / SIZE_k / OFFSET_k / VALUE_k -----------------------------------
SHAPE = [2, 3, 16, 16]
STRIDE = [768, 256, 16, 1]


def sniklaus(code):
    code = code.replace("{{type}}", "float")
    code = re.sub(r"\{\{(\w+)\}\}", lambda m: value_for(m.group(1)), code)
    code = re.sub(r"SIZE_([0-4])\(([^)]*)\)", lambda m: str(SHAPE[int(m.group(1))]), code)
    for macro in ("OFFSET_", "VALUE_"):
        while True:
            m = re.search(macro + r"([0-4])\(", code)
            if not m:
                break
            start = stop = m.end()
            depth = 1
            while True:
                depth += code[stop] == "("
                depth -= code[stop] == ")"
                if depth == 0:
                    break
                stop += 1
            args = code[start:stop].split(",")
            k = int(m.group(1))
            idx = "+".join(f"(({a.replace('{', '(').replace('}', ')').strip()})*{STRIDE[i]})"
                           for i, a in enumerate(args[1:k + 1]))
            rep = f"({idx})" if macro == "OFFSET_" else f"{args[0].strip()}[{idx}]"
            code = code[:m.start()] + rep + code[stop + 1:]
    return code, "sniklaus {{type}}=float SIZE/OFFSET/VALUE expanded for shape 2x3x16x16"


def main():
    # cupy/cupy: tests, examples, docs, core pyx (not cupyx: the project's own corpus has it)
    gd = f"{M}/cupy+cupy/repo"; c = git(gd, "rev-parse", "HEAD").strip()
    for p in ls(gd, c):
        if p.startswith(("tests/cupy_tests/", "examples/", "cupy/_core/", "cupy/random/",
                         "tests/cupyx_tests/")) and p.endswith((".py", ".pyx")):
            if "__global__" in show(gd, c, p):
                from_python("cupy", gd, c, p)
        elif p.startswith("docs/") and p.endswith(".rst") and "__global__" in show(gd, c, p):
            from_rst("cupy", gd, c, p)
        elif p == "examples/gemm/sgemm.cu":
            from_cu("cupy", gd, c, p, options=("--std=c++17", "-DDIM_X=16", "-DDIM_Y=16",
                                               "-DBLK_M=64", "-DBLK_N=64", "-DBLK_K=4",
                                               "-DDIM_XA=64", "-DDIM_YA=4", "-DDIM_XB=4",
                                               "-DDIM_YB=64"))
    # test_mdspan: run its pure generator for ndim 1..3 and the three layouts
    src = show(gd, c, "tests/cupy_tests/core_tests/test_mdspan.py")
    fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "make_kernel_code")
    ns = {}
    exec(compile(ast.Module([fn], []), "mdspan", "exec"), ns)
    for nd in (1, 2, 3):
        for lay in ("layout_stride", "layout_right", "layout_left"):
            add("cupy", gd, c, "tests/cupy_tests/core_tests/test_mdspan.py", f"make_kernel_code_{nd}_{lay}",
                ns["make_kernel_code"]("kern", nd, lay), exprs=("kern<float, int>",),
                note="make_kernel_code executed")
    # cusignal: current .cu (fatbin sources) + pre-fatbin python strings
    gd = f"{M}/rapidsai+cusignal/repo"; c = git(gd, "rev-parse", "HEAD").strip()
    for p in ls(gd, c):
        if p.endswith(".cu"):
            from_cu("cusignal", gd, c, p)
        elif p.endswith(".py") and "__global__" in show(gd, c, p):
            from_python("cusignal", gd, c, p)
    old = git(gd, "rev-parse", "b64bf55^").strip()
    for p in ls(gd, old):
        if p.endswith(".py") and "__global__" in show(gd, old, p):
            from_python("cusignal", gd, old, p)
        elif p.endswith(".cu"):
            from_cu("cusignal", gd, old, p)
    # cucim
    gd = f"{M}/rapidsai+cucim/repo"; c = git(gd, "rev-parse", "HEAD").strip()
    for p in ls(gd, c):
        if p.endswith(".cu") and p.startswith("python/"):
            from_cu("cucim", gd, c, p)
        elif p.endswith(".py") and p.startswith("python/cucim/src") and "__global__" in show(gd, c, p) \
                and "_vendored" not in p:
            from_python("cucim", gd, c, p)
    # chainer (chainermn raw kernels)
    gd = f"{M}/chainer+chainer/repo"; c = git(gd, "rev-parse", "HEAD").strip()
    for p in ls(gd, c):
        if p.endswith(".py") and p.startswith(("chainer/", "chainermn/")) and "__global__" in show(gd, c, p):
            from_python("chainer", gd, c, p)
    # httomolibgpu: current and historical .cu files (loaded with a #line prefix, -std=c++17)
    gd = f"{M}/DiamondLightSource+httomolibgpu/repo"; c = git(gd, "rev-parse", "HEAD").strip()
    revs = git(gd, "log", "--format=%H", "--", "httomolibgpu/cuda_kernels", "httomolib/cuda_kernels").split()
    for r in revs[::6] + [c]:
        for p in ls(gd, r):
            if p.endswith(".cu") and "cuda_kernels/" in p:
                from_cu("httomolibgpu", gd, r, p, prefix=f'#line 1 "/site/{p}"\n')
    # pyinn (string.Template)
    gd = f"{M}/szagoruyko+pyinn/repo/.git"; c = git(gd, "rev-parse", "HEAD").strip()
    for p in ls(gd, c):
        if p.endswith(".py") and "__global__" in show(gd, c, p):
            from_python("pyinn", gd, c, p)
    # softmax-splatting ({{type}} + SIZE_/OFFSET_/VALUE_ macros)
    gd = f"{M}/sniklaus+softmax-splatting/repo"; c = git(gd, "rev-parse", "HEAD").strip()
    for p in ls(gd, c):
        if p.endswith(".py") and "__global__" in show(gd, c, p):
            from_python("softsplat", gd, c, p, transform=sniklaus)
    more()
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    from collections import Counter
    print(Counter(v["project"] for v in index.values()))
    print("\n".join(skipped))




def more():
    """sniklaus repos and cuML (appended pass)."""
    for repo in ("sniklaus+3d-ken-burns", "sniklaus+pytorch-pwc"):
        gd = f"{M}/{repo}/repo"; c = git(gd, "rev-parse", "HEAD").strip()
        for p in ls(gd, c):
            if p.endswith(".py") and "__global__" in show(gd, c, p):
                from_python(repo.split("+")[1], gd, c, p, transform=sniklaus)
    # cuML: literal RawKernels + cuda_kernel_factory bodies ("(params) {...}", {0},{1} = dtypes)
    gd = f"{M}/rapidsai+cuml/repo"; c = git(gd, "rev-parse", "HEAD").strip()
    for p in ls(gd, c):
        if p.startswith("python/") and p.endswith((".py", ".pyx")):
            text = show(gd, c, p)
            if "__global__" in text and p.endswith(".py") and "kernel_utils" not in p:
                from_python("cuml", gd, c, p)
            if "cuda_kernel_factory" in text and "kernel_utils" not in p:
                pat = r"(\w+)\s*[=(]\s*r?(\"\"\"|''')(.*?)\2"
                for m in re.finditer(pat, text, re.S | re.M):
                    body = m.group(3)
                    if body.strip().startswith("(") and "{" in body:
                        n = len(set(re.findall(r"\{(\d)\}", body)))
                        dts = ["float", "int", "int", "float", "float"]
                        for i in range(n):
                            body = body.replace("{%d}" % i, dts[i])
                        code = 'extern "C" __global__\nvoid %s%s' % (m.group(1), body)
                        add("cuml", gd, c, p, m.group(1), code,
                            note="cuda_kernel_factory dtypes " + ",".join(dts[:n]))


if __name__ == "__main__":
    main()
