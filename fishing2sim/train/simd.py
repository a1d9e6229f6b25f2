"""Eight float64 in one vector register, for the student's hidden layer (features.py,
_hidden_score): a numba type whose value is an LLVM vector <8 x double>, and three
operations on it through raw pointers. A loop that carries such a value keeps it in a
register from one feature to the next; a sum kept in a buffer instead waits at every
feature for its own store to come back. On a machine without 512-bit registers LLVM
splits the vector in two or four."""
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
