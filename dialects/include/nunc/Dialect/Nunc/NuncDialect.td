//===- NuncDialect.td - nunc dialect definition ------------*- tablegen -*-===//
//
// The `nunc` dialect holds a model at tensor level with ONNX semantics. Ops are
// normalized at import: attributes that later opsets turned into inputs (axes of
// Squeeze/Unsqueeze/Reduce*, Clip bounds) are always operands, defaults are filled
// in, and legacy semantics (Softmax before opset 13) are rewritten by the importer.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_DIALECT_NUNC_NUNCDIALECT_TD
#define NUNC_DIALECT_NUNC_NUNCDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Nunc_Dialect : Dialect {
  let name = "nunc";
  let cppNamespace = "::mlir::nunc";
  let summary = "Tensor-level model IR with ONNX semantics";
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  // Quantized ops carry the quant dialect's types.
  let dependentDialects = ["::mlir::quant::QuantDialect"];
}

// Element types a tensor of the nunc dialect may hold. ONNX int8/16/32/64 map to
// signless integers, uint8/16/32/64 to unsigned integers, bool to i1.
def Nunc_ElementType : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, UI8, I16, UI16,
                                  I32, UI32, I64, UI64]>;
def Nunc_Tensor : TensorOf<[Nunc_ElementType]>;
def Nunc_IntTensor : TensorOf<[I64, I32]>;
// Everything arithmetic is defined on: all element types but bool.
def Nunc_NumericTensor : TensorOf<[F16, BF16, F32, F64, I8, UI8, I16, UI16, I32,
                                   UI32, I64, UI64]>;
def Nunc_IntegerTensor : TensorOf<[I8, UI8, I16, UI16, I32, UI32, I64, UI64]>;
def Nunc_SignedNumericTensor : TensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64]>;
def Nunc_FloatTensor : TensorOf<[F16, BF16, F32, F64]>;
def Nunc_QuantTensor : TensorOf<[I8, UI8]>;
// What QuantizeLinear produces and DequantizeLinear reads (ONNX allows 16 bits).
def Nunc_QuantStorageTensor : TensorOf<[I8, UI8, I16, UI16]>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

// Provenance of an op imported from ONNX: rides in the op's location as the
// metadata of a FusedLoc, so every diagnostic can name the ONNX op and opset.
def Nunc_OnnxNodeAttr : AttrDef<Nunc_Dialect, "OnnxNode"> {
  let mnemonic = "onnx_node";
  let summary = "ONNX op type, domain and opset of the node an op came from";
  let parameters = (ins StringRefParameter<"op type">:$opType,
                        StringRefParameter<"domain", "\"\"">:$domain,
                        "int64_t":$opset);
  let assemblyFormat = "`<` $opType `,` $opset (`,` $domain^)? `>`";
}

#endif // NUNC_DIALECT_NUNC_NUNCDIALECT_TD
