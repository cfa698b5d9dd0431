"""The C front ends (CUDA C for CuPy, OpenCL C for PyOpenCL), on one libclang layer.

Entries: `opencl.rewrite(source, ...)` and `cuda.rewrite(source, ...)` return one result type
(rewrite_result.Rewrite): the checked source, the kernels as the launch needs them
(kernel_info.KernelInfo, param_info.ParamInfo), the report and the failure sites (which the
backends register); a source libclang cannot parse is parse_error.ParseError (a
CompilationError) in both. Where things are, bottom up:

    parse        libclang: the translation unit, offsets <-> lines, tokens, macros, `located`
                 (libclang.py: the bindings, loaded once; tree.py: a unit's tree read once,
                 shared by every pass and walk)
    line_map     the source's own `#line` directives: the file:line every report, error and
                 build log names (the physical line is the one shown)
    parse_cache  one parse for the builds of one kernel (checked, variants, all checks)
    parse_error  the one parse error of both dialects
    macros       the source's own macro uses in function bodies, expanded in place (on their
                 lines) so what they hold is checked; both dialects parse the result
    edits        text edits that keep every line, `#line`, apply_edits
    buildlog     a driver's build log at the user's lines
    model        the facts passes hand on: Access, Root/Unknown, HelperCall, FunctionFacts,
                 Dialect (the dialect hooks), the check kinds (check_kinds.py's); param_info,
                 kernel_info, rewrite_result: what a rewrite returns, the same for both
                 dialects; access_check: the check a found access needs (Check), made
                 there for both dialects' walks (its flags too), which each dialect's edit
                 pass spells
    prelude      the C text of the check helpers (__sk_ix, the failure record, ...): one
                 generator, filled in with each dialect's words
    provenance   what a pointer points into -- one analysis for both dialects
    ranges       what a loop variable ranges over (OpenCL's proof that an index is in bounds)
    messages     the text of assert and division failure messages
    safety       asserts and integer division: sites and the edits that check them
    writes       which pointer parameters a function stores through (the overlap check)
    launch       launch predicates: bounds of an index over launch facts (launch_vars: the
                 values of local variables at a use; launch_expr: the predicates as data,
                 which backends/c_launch.py evaluates at each launch)
    walker       the one access walk of both dialects (AccessWalker: the visit, the
                 dispatch per node kind, the records; analysis only), whose hooks the
                 dialects fill in: checks (OpenCLWalker) and cuda_access (CudaWalker)
    checks       OpenCL: the walk's hooks; opencl_edits: the edits that check what it found
    exits        OpenCL: where a failing work-item goes (barrier-safe jumps)
    uniformity   OpenCL: which `if` conditions a whole work-group, a failing work-item
                 included, evaluates alike (a barrier may sit under those)
    opencl       OpenCL: the dialect, `rewrite`; opencl_headers (what libclang's
                 parse includes), opencl_safety (assert/division helpers), opencl_rewrite (the
                 program's rewrite), opencl_unedited (functions a macro writes: left as
                 written, unchecked)
    cuda         CUDA: `rewrite`, parse_cuda; cuda_dialect (the dialect), cuda_headers
                 (stand-ins for CUDA's headers), cuda_rewrite (the module's rewrite),
                 cuda_signatures (hidden parameters, prologue), cuda_access (the walk's
                 hooks), cuda_calls (its hooks for barriers, atomics, calls), cuda_edits
                 (the edits that check what the walk found)
"""
