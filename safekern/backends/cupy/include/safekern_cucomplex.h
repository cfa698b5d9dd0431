/* safekern.cupy, translate_cucomplex=True: what `#include <cuComplex.h>` becomes.
   CuPy prepends its headers (cupy/complex.cuh first) and replaces the include by its bridge
   header, which maps the cuComplex names onto complex<T>. One include for one keeps the
   user's line numbers. */
#include <cupy/complex.cuh>
#include <cupy/cuComplex_bridge.h>
