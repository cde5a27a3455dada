/* kernel_kinds.h — the .yrt operator kinds (yolort_format.h) as the kernels' own (yk.h). The
 * kernels do not see the file format; the runtime keeps the values equal, so a node's kind
 * parameter passes to a kernel as it is, and this header checks that at compile time: a kind
 * added on one side only fails to compile wherever this is included. */
#ifndef YOLORT_KERNEL_KINDS_H
#define YOLORT_KERNEL_KINDS_H

#include "yk.h"
#include "yolort_format.h"

_Static_assert((int)YRT_UNARY_NONE == (int)YK_UNARY_NONE, "unary kind NONE");
_Static_assert((int)YRT_UNARY_RELU == (int)YK_UNARY_RELU, "unary kind RELU");
_Static_assert((int)YRT_UNARY_SIGMOID == (int)YK_UNARY_SIGMOID, "unary kind SIGMOID");
_Static_assert((int)YRT_UNARY_SILU == (int)YK_UNARY_SILU, "unary kind SILU");
_Static_assert((int)YRT_UNARY_LEAKY_RELU == (int)YK_UNARY_LEAKY_RELU, "unary kind LEAKY_RELU");
_Static_assert((int)YRT_UNARY_TANH == (int)YK_UNARY_TANH, "unary kind TANH");
_Static_assert((int)YRT_UNARY_EXP == (int)YK_UNARY_EXP, "unary kind EXP");
_Static_assert((int)YRT_UNARY_IDENTITY == (int)YK_UNARY_IDENTITY, "unary kind IDENTITY");
_Static_assert((int)YRT_UNARY_COS == (int)YK_UNARY_COS, "unary kind COS");
_Static_assert((int)YRT_UNARY_SIN == (int)YK_UNARY_SIN, "unary kind SIN");
_Static_assert((int)YRT_UNARY_SIN + 1 == (int)YK_UNARY_COUNT, "a unary kind the kernels lack (or the format)");
_Static_assert((int)YRT_BIN_ADD == (int)YK_BIN_ADD, "binary kind ADD");
_Static_assert((int)YRT_BIN_SUB == (int)YK_BIN_SUB, "binary kind SUB");
_Static_assert((int)YRT_BIN_MUL == (int)YK_BIN_MUL, "binary kind MUL");
_Static_assert((int)YRT_BIN_DIV == (int)YK_BIN_DIV, "binary kind DIV");
_Static_assert((int)YRT_BIN_DIV + 1 == (int)YK_BIN_COUNT, "a binary kind the kernels lack (or the format)");
_Static_assert(YRT_MATMUL_I8_MAX_K == YK_QMATMUL_MAX_K, "the int8 MATMUL's K bound is the kernel's");
_Static_assert(YRT_SOFTMAX_I8_MAX_LEN == YK_SOFTMAX_I8_MAX_LEN, "the int8 SOFTMAX's row bound is the kernel's");

#endif /* YOLORT_KERNEL_KINDS_H */
