"""Types and macros of OpenCL C for libclang's parse: BASE_HEADER (the wheel ships no headers).

Only the parse sees this header (the OpenCL dialect passes it as an in-memory file and
`-include`s it); the driver compiles the rewritten program with its own headers.
"""
from __future__ import annotations

from . import opencl_safety


def _base_header() -> str:
    """Types and macros of OpenCL C for libclang's parse (the wheel ships no headers).

    Built-in functions come from clang's -fdeclare-opencl-builtins; this header gives them the
    typedefs and feature macros they depend on. Only the parse sees it: the driver compiles
    with its own headers.
    """
    lines = ["#ifndef SAFEKERN_OPENCL_BASE_H", "#define SAFEKERN_OPENCL_BASE_H",
             "#if __OPENCL_C_VERSION__ >= 200",
             *[f"#define __opencl_c_{f} 1" for f in (
                 "generic_address_space", "work_group_collective_functions",
                 "atomic_order_acq_rel", "atomic_order_seq_cst", "atomic_scope_device",
                 "atomic_scope_all_devices", "device_enqueue", "pipes", "read_write_images",
                 "program_scope_global_variables", "images", "3d_image_writes", "subgroups",
                 "fp64", "int64")],
             "#define cl_khr_subgroups 1", "#define __opencl_subgroup_builtins 1",
             "#else", "#define __opencl_c_named_address_space_builtins 1", "#endif",
             "typedef unsigned char uchar;", "typedef unsigned short ushort;",
             "typedef unsigned int uint;", "typedef unsigned long ulong;",
             "typedef __SIZE_TYPE__ size_t;", "typedef __PTRDIFF_TYPE__ ptrdiff_t;",
             "typedef __INTPTR_TYPE__ intptr_t;", "typedef __UINTPTR_TYPE__ uintptr_t;"]
    for t in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
              "double", "half"):
        for n in (2, 3, 4, 8, 16):
            lines.append(f"typedef {t} {t}{n} __attribute__((ext_vector_type({n})));")
    lines += [
        "typedef uint cl_mem_fence_flags;",
        "#define CLK_LOCAL_MEM_FENCE 0x01", "#define CLK_GLOBAL_MEM_FENCE 0x02",
        "#define CLK_IMAGE_MEM_FENCE 0x04",
        "#if __OPENCL_C_VERSION__ >= 200",
        "typedef enum memory_scope { memory_scope_work_item = __OPENCL_MEMORY_SCOPE_WORK_ITEM,"
        " memory_scope_work_group = __OPENCL_MEMORY_SCOPE_WORK_GROUP, memory_scope_device = "
        "__OPENCL_MEMORY_SCOPE_DEVICE, memory_scope_all_svm_devices = "
        "__OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES, memory_scope_all_devices = "
        "__OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES, memory_scope_sub_group = "
        "__OPENCL_MEMORY_SCOPE_SUB_GROUP } memory_scope;",
        "typedef enum memory_order { memory_order_relaxed = __ATOMIC_RELAXED, "
        "memory_order_acquire = __ATOMIC_ACQUIRE, memory_order_release = __ATOMIC_RELEASE, "
        "memory_order_acq_rel = __ATOMIC_ACQ_REL, memory_order_seq_cst = __ATOMIC_SEQ_CST } "
        "memory_order;",
        "#define ATOMIC_VAR_INIT(x) (x)", "#define ATOMIC_FLAG_INIT 0",
        "#define CLK_ENQUEUE_FLAGS_NO_WAIT 0", "#define CLK_ENQUEUE_FLAGS_WAIT_KERNEL 1",
        "#define CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP 2",
        "#define CLK_SUCCESS 0", "#define CLK_PROFILING_COMMAND_EXEC_TIME 0x1",
        "#endif",
        "#define CLK_ADDRESS_NONE 0", "#define CLK_ADDRESS_CLAMP_TO_EDGE 2",
        "#define CLK_ADDRESS_CLAMP 4", "#define CLK_ADDRESS_REPEAT 6",
        "#define CLK_ADDRESS_MIRRORED_REPEAT 8", "#define CLK_NORMALIZED_COORDS_FALSE 0",
        "#define CLK_NORMALIZED_COORDS_TRUE 1", "#define CLK_FILTER_NEAREST 0x10",
        "#define CLK_FILTER_LINEAR 0x20",
        "#define CHAR_BIT 8", "#define SCHAR_MAX 127", "#define SCHAR_MIN (-127-1)",
        "#define CHAR_MAX SCHAR_MAX", "#define CHAR_MIN SCHAR_MIN", "#define UCHAR_MAX 255",
        "#define SHRT_MAX 32767", "#define SHRT_MIN (-32767-1)", "#define USHRT_MAX 65535",
        "#define INT_MAX 2147483647", "#define INT_MIN (-2147483647-1)",
        "#define UINT_MAX 0xffffffffU", "#define LONG_MAX 0x7fffffffffffffffL",
        "#define LONG_MIN (-0x7fffffffffffffffL-1)", "#define ULONG_MAX 0xffffffffffffffffUL",
        "#define FLT_DIG 6", "#define FLT_MANT_DIG 24", "#define FLT_MAX_10_EXP +38",
        "#define FLT_MAX_EXP +128", "#define FLT_MIN_10_EXP -37", "#define FLT_MIN_EXP -125",
        "#define FLT_RADIX 2", "#define FLT_MAX 0x1.fffffep127f", "#define FLT_MIN 0x1.0p-126f",
        "#define FLT_EPSILON 0x1.0p-23f", "#define MAXFLOAT FLT_MAX",
        "#define HUGE_VALF (__builtin_huge_valf())", "#define HUGE_VAL (__builtin_huge_val())",
        "#define INFINITY (__builtin_inff())", "#define NAN (__builtin_nanf(\"\"))",
        "#define FP_ILOGB0 INT_MIN", "#define FP_ILOGBNAN INT_MAX",
        "#define DBL_DIG 15", "#define DBL_MANT_DIG 53", "#define DBL_MAX_10_EXP +308",
        "#define DBL_MAX_EXP +1024", "#define DBL_MIN_10_EXP -307", "#define DBL_MIN_EXP -1021",
        "#define DBL_RADIX 2", "#define DBL_MAX 0x1.fffffffffffffp1023",
        "#define DBL_MIN 0x1.0p-1022", "#define DBL_EPSILON 0x1.0p-52",
        "#define HALF_DIG 3", "#define HALF_MANT_DIG 11", "#define HALF_MAX ((0x1.ffcp15h))",
        "#define HALF_MIN ((0x1.0p-14h))", "#define HALF_EPSILON ((0x1.0p-10h))",
    ]
    for name, value in (("E", "2.718281828459045"), ("LOG2E", "1.4426950408889634"),
                        ("LOG10E", "0.4342944819032518"), ("LN2", "0.6931471805599453"),
                        ("LN10", "2.302585092994046"), ("PI", "3.141592653589793"),
                        ("PI_2", "1.5707963267948966"), ("PI_4", "0.7853981633974483"),
                        ("1_PI", "0.3183098861837907"), ("2_PI", "0.6366197723675814"),
                        ("2_SQRTPI", "1.1283791670955126"), ("SQRT2", "1.4142135623730951"),
                        ("SQRT1_2", "0.7071067811865476")):
        lines.append(f"#define M_{name} {value}")
        lines.append(f"#define M_{name}_F {value}f")
        lines.append(f"#define M_{name}_H (({value}h))")
    lines.append("int printf(__constant const char* restrict, ...);")
    lines += opencl_safety.PARSE_DECLARATIONS
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def _reinterpretations() -> list:
    """as_<type>(x) for every pair of types of one size: clang's opencl-c-base.h makes them
    macros over __builtin_astype, which -fdeclare-opencl-builtins does not declare (silx's
    bitonic sort, its LZ4 codec). Functions, not macros: an access in the argument stays the
    user's text, checked like any other. (Not half's: a half parameter needs cl_khr_fp16
    enabled by the program.)"""
    sizes = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4,
             "float": 4, "long": 8, "ulong": 8, "double": 8}
    by_size: dict = {}
    for t, size in sizes.items():
        for n in (1, 2, 3, 4, 8, 16):
            by_size.setdefault(size * (4 if n == 3 else n), []).append(t + (str(n) if n > 1
                                                                           else ""))
    return [f"{to} __attribute__((overloadable, const)) as_{to}({fro});"
            for same in by_size.values() for to in same for fro in same]


BASE_HEADER = _base_header()
#: as_<type>(x), parsed only for a program that uses them (648 declarations: 13 ms a parse)
ASTYPE_NAME = "safekern-opencl-astype.h"
ASTYPE_HEADER = "#pragma once\n" + "\n".join(_reinterpretations()) + "\n"


__all__ = ["BASE_HEADER", "ASTYPE_NAME", "ASTYPE_HEADER"]
