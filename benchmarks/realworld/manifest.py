"""Where each real-world kernel comes from: project, file, commit or version, licence, names.

Only this manifest is part of safekern. The kernels themselves are other projects' code, which
stays out of this repository: `extract.py` copies the named functions out of a checkout of each
project at the pinned commit (or out of the installed package at the pinned version) into
`.realworld/` (git-ignored), and changes one thing, the decorator -- `cuda.jit` (and fbpic's
`compile_cupy`, which is `cuda.jit` when fbpic runs on numba) becomes `safekern.jit`, exactly
the swap a user makes. `glue` lines are ours: module-level names the kernels read that live in
other modules of their project (a constant, a device function imported from elsewhere).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Project:
    name: str
    repo: str            # owner/name of the public repository, or "" for an installed package
    commit: str          # commit of the repository, or the package version
    licence: str
    package: str = ""    # the installed package whose files are read instead of a checkout


@dataclass(frozen=True)
class Source:
    """One generated module: functions (and assignments) taken from files of one project."""
    project: str
    parts: tuple          # ((path in the project, (names...)) or (GLUE, text), ...), in order
    glue: str = ""        # our own lines, placed before the project's code
    note: str = ""


PROJECTS = {p.name: p for p in (
    Project("xarray-spatial", "makepath/xarray-spatial",
            "5f6238f80fceb39740f975bc35cb6d93f6255c83", "MIT"),
    Project("stumpy", "TDAmeritrade/stumpy",
            "423c679fdfcdd547744d2b9a2aed7565124fd6e1", "BSD-3-Clause"),
    Project("fbpic", "fbpic/fbpic", "3e9f181e6cbfdd7830060bbe541a046d80ff3c45",
            "BSD-3-Clause-LBNL"),
    Project("bnlhack19", "ArgonneCPAC/bnlhack19", "d399b2e200ec7dbd733c754b06c4bd368eb00e67",
            "BSD-3-Clause"),
    Project("numba-cuda", "", "0.30", "BSD-2-Clause", package="numba_cuda"),
)}

GLUE = None           # a part whose "names" are our own lines, placed there
_DOCS = "numba/cuda/tests/doc_examples/"

SOURCES = {
    "xrspatial_convolution": Source("xarray-spatial", (
        ("xrspatial/convolution.py", ("_convolve_2d_cuda",)),)),
    "xrspatial_focal": Source("xarray-spatial", (
        ("xrspatial/focal.py", ("_focal_std_cuda", "_focal_max_cuda", "_mean_gpu")),)),
    "xrspatial_slope": Source("xarray-spatial", (
        ("xrspatial/slope.py", ("_gpu", "_run_gpu")),)),
    "xrspatial_aspect": Source("xarray-spatial", (
        ("xrspatial/aspect.py", ("_gpu", "_run_gpu")),)),
    "xrspatial_curvature": Source("xarray-spatial", (
        ("xrspatial/curvature.py", ("_gpu", "_run_gpu")),)),
    "xrspatial_hillshade": Source("xarray-spatial", (
        ("xrspatial/hillshade.py", ("_gpu_calc_numba",)),)),
    "xrspatial_perlin": Source("xarray-spatial", (
        ("xrspatial/perlin.py", ("_lerp_gpu", "_fade_gpu", "_gradient_gpu", "_perlin_gpu")),)),
    "xrspatial_multispectral": Source("xarray-spatial", (
        ("xrspatial/multispectral.py", ("_evi_gpu", "_arvi_gpu")),)),
    "stumpy_gpu_stump": Source(
        "stumpy", (("stumpy/core.py", ("_gpu_searchsorted_right",)),
                   # gpu_stump.py reads `core._gpu_searchsorted_right` and
                   # `config.STUMPY_DENOM_THRESHOLD` from stumpy's modules; here they are
                   # modules of their own, made before the kernel (whose explicit signature
                   # compiles it at decoration)
                   (GLUE, "import types as _types\n"
                          "core = _types.ModuleType('core')\n"
                          "core._gpu_searchsorted_right = _gpu_searchsorted_right\n"
                          "config = _types.ModuleType('config')\n"
                          "config.STUMPY_DENOM_THRESHOLD = 1e-14\n"),
                   ("stumpy/gpu_stump.py", ("_compute_and_update_PI_kernel",)))),
    "fbpic_deposit": Source(
        "fbpic", (("fbpic/particles/deposition/particle_shapes.py", ("Sz_linear", "Sr_linear")),
                  ("fbpic/particles/deposition/cuda_methods_unsorted.py",
                   ("Sz_linear", "Sr_linear", "deposit_rho_gpu_unsorted")))),
    "fbpic_push": Source(
        "fbpic", (("fbpic/particles/push/inline_functions.py", ("push_p_vay",)),
                  ("fbpic/particles/push/cuda_methods.py",
                   ("push_p_vay", "push_p_gpu", "push_x_gpu"))),
        glue="c = 299792458.0   # scipy.constants.c\ne = 1.602176634e-19   # scipy.constants.e\n"),
    "fbpic_gather": Source(
        "fbpic", (("fbpic/particles/gathering/inline_functions.py",
                   ("add_linear_gather_for_mode",)),
                  ("fbpic/particles/gathering/cuda_methods_one_mode.py",
                   ("add_linear_gather_for_mode", "gather_field_gpu_linear_one_mode")))),
    "bnlhack19_pairs": Source("bnlhack19", (
        ("chopperhack19/mock_obs/gaussian_weighted_pair_counts.py",
         ("count_weighted_pairs_3d_cuda",)),
        ("chopperhack19/mock_obs/double_chop_kernel.py", ("double_chop_pairs_cuda",)))),
    "numba_docs_matmul": Source("numba-cuda", (
        (_DOCS + "test_matmul.py", ("fast_matmul",)),),
        glue="TPB = 16   # the example's block side, a local of the test method\n"),
    "numba_docs_laplace": Source("numba-cuda", (
        (_DOCS + "test_laplace.py", ("solve_heat_equation",)),)),
}


@dataclass(frozen=True)
class KernelRef:
    """A kernel of a generated module, built per benchmark mode (`build`)."""
    source: str
    name: str
    extra: dict = field(default_factory=dict, compare=False)
