"""Vector operations for the student. Eight float64 in one vector register, for its hidden
layer (features.py, _hidden_score): a numba type whose value is an LLVM vector <8 x double>, and three
operations on it through raw pointers. A loop that carries such a value keeps it in a
register from one feature to the next; a sum kept in a buffer instead waits at every
feature for its own store to come back; the ReLU and the output row read the sums from
those registers too (v8_relu_dot, v8_sum4). On a machine without 512-bit registers LLVM
splits the vector in two or four. And 64 cards' entries of an observation column compared
with a number at once, the matches as one word's bits (mask64_eq, mask64_ge: the unseen
cards' masks of tables.py)."""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.datamodel import models
from numba.extending import intrinsic, register_model

_V8 = ir.VectorType(ir.DoubleType(), 8)


class Vec8Type(types.Type):
    def __init__(self):
        super().__init__(name="Vec8")


vec8 = Vec8Type()


@register_model(Vec8Type)
class _Vec8Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _V8)


def _at(builder, pointer, offset):
    return builder.bitcast(builder.gep(pointer, [offset]), _V8.as_pointer())


def _is_f64_pointer(p):
    return isinstance(p, types.CPointer) and p.dtype == types.float64


@intrinsic
def v8_load(typingctx, p, offset):
    """p[offset : offset + 8] (p: a float64 pointer)."""
    if not (_is_f64_pointer(p) and isinstance(offset, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        return builder.load(_at(builder, args[0], args[1]), align=8)
    return vec8(p, offset), codegen


@intrinsic
def v8_fma(typingctx, a, x, p, offset):
    """a + x * p[offset : offset + 8], each lane fused into one multiply-add (as the
    scalar loop compiled with fastmath does: the same sums to the last bit)."""
    if not (a == vec8 and x == types.float64 and _is_f64_pointer(p)
            and isinstance(offset, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        w = builder.load(_at(builder, args[2], args[3]), align=8)
        xv = cgutils.get_null_value(_V8)
        for i in range(8):
            xv = builder.insert_element(xv, args[1], ir.Constant(ir.IntType(32), i))
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_V8, [_V8, _V8, _V8]), "llvm.fma.v8f64")
        return builder.call(fma, [xv, w, args[0]])
    return vec8(a, x, p, offset), codegen


@intrinsic
def v8_store(typingctx, p, offset, a):
    """p[offset : offset + 8] = a."""
    if not (_is_f64_pointer(p) and isinstance(offset, types.Integer) and a == vec8):
        return None

    def codegen(context, builder, signature, args):
        builder.store(args[2], _at(builder, args[0], args[1]), align=8)
        return context.get_dummy_value()
    return types.none(p, offset, a), codegen


@intrinsic
def v8_zero(typingctx):
    """Eight zeroes."""
    def codegen(context, builder, signature, args):
        return ir.Constant(_V8, None)
    return vec8(), codegen


@intrinsic
def v8_relu_dot(typingctx, acc, a, p, offset):
    """acc + max(a, 0) * p[offset : offset + 8], each lane one fused multiply-add (a lane
    of a at or below 0 adds nothing): the hidden layer's ReLU and output row straight from
    its sums in registers."""
    if not (acc == vec8 and a == vec8 and _is_f64_pointer(p)
            and isinstance(offset, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        u = builder.load(_at(builder, args[2], args[3]), align=8)
        zero = ir.Constant(_V8, None)
        z = builder.select(builder.fcmp_ordered(">", args[1], zero), args[1], zero)
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_V8, [_V8, _V8, _V8]), "llvm.fma.v8f64")
        return builder.call(fma, [z, u, args[0]])
    return vec8(acc, a, p, offset), codegen


@intrinsic
def v8_sum4(typingctx, a0, a1, a2, a3):
    """The sum of the 32 lanes of a0 .. a3 in the order LLVM's vectorised loop over 32
    sums added them (the loop the hidden layer's ReLU was, compiled with fastmath):
    (a0 + a1) + (a2 + a3), then lane i + lane i + 4, lane i + lane i + 2, lane 0 + lane 1;
    the same sum to the last bit, so the same scores."""
    if not (a0 == vec8 and a1 == vec8 and a2 == vec8 and a3 == vec8):
        return None

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)

        def half(v, start, n):
            at = ir.Constant(ir.VectorType(i32, n), [start + i for i in range(n)])
            return builder.shuffle_vector(v, v, at)
        t = builder.fadd(builder.fadd(args[0], args[1]), builder.fadd(args[2], args[3]))
        t = builder.fadd(half(t, 0, 4), half(t, 4, 4))
        t = builder.fadd(half(t, 0, 2), half(t, 2, 2))
        return builder.fadd(builder.extract_element(t, ir.Constant(i32, 0)),
                            builder.extract_element(t, ir.Constant(i32, 1)))
    return types.float64(a0, a1, a2, a3), codegen


# ---- 64 cards at a time: a per-card column of the observation compared with a number ----
# The observation's per-card columns (kind, value, suit, public place) are MAX_CARDS int64
# each. One comparison of 64 of them with a number, as LLVM's <64 x i64> compare whose 64
# results are the bits of one word, gives the cards that match as a card mask, with no
# branch per card: a few vector compares where the machine has 512-bit registers (LLVM
# splits the vector on a machine without).
_I64 = ir.IntType(64)
_V64 = ir.VectorType(_I64, 64)


def _mask64(predicate, doc):
    def mask(typingctx, arr, offset, x):
        if not (isinstance(arr, types.Array) and arr.dtype == types.int64 and arr.ndim == 1
                and arr.layout == "C" and isinstance(offset, types.Integer)
                and isinstance(x, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            at = builder.bitcast(builder.gep(data, [args[1]]), _V64.as_pointer())
            v = builder.load(at, align=8)
            xs = context.cast(builder, args[2], signature.args[2], types.int64)
            splat = cgutils.get_null_value(_V64)
            for i in range(64):
                splat = builder.insert_element(splat, xs, ir.Constant(ir.IntType(32), i))
            bits = builder.icmp_signed(predicate, v, splat)
            return builder.bitcast(bits, _I64)
        return types.uint64(arr, offset, x), codegen
    mask.__doc__ = doc
    mask.__name__ = f"mask64_{'eq' if predicate == '==' else 'ge'}"
    return intrinsic(mask)


mask64_eq = _mask64("==", """The cards ``c`` of arr[offset : offset + 64] with arr[offset + c] == x, as
    the bits of a uint64 (arr: a C-contiguous int64 array; the 64 entries must lie
    inside it: the caller's offsets are a column's start or its start + 64).""")
mask64_ge = _mask64(">=", """As mask64_eq, the entries >= x (signed).""")
