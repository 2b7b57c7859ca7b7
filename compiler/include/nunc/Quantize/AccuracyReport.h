//===- AccuracyReport.h - how far int8 is from f32 --------------*- C++ -*-===//
//
// Measures a quantized model against its f32 form on sample inputs, with the
// reference evaluator: each quantized linear op in isolation (fed the input
// it sees in the f32 model: SNR and cosine of its output), and the model's
// outputs end to end (cosine, max abs error, top-1 agreement for [batch,
// classes] outputs). `nunc compile --report` writes it as Markdown, and
// `--accuracy-target` uses it to keep the most sensitive layers in f32.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_QUANTIZE_ACCURACYREPORT_H
#define NUNC_QUANTIZE_ACCURACYREPORT_H

#include "nunc/Interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::nunc {

struct LayerError {
  std::string key; // quantizationKey() of the op
  double snrDb = 0, cosine = 1;
};

struct OutputAgreement {
  std::string name;
  double cosine = 1, maxAbsError = 0;
  double top1 = -1; // fraction of rows with the same argmax; -1 when not a classifier
};

/// Per-layer errors of the quantized linear ops (and convolutions, and
/// attentions on int8 products) of `quantized`, in program order, each
/// measured in isolation on the inputs of its f32 twin in `f32`. Up to
/// `threads` samples are evaluated at once, their errors summed in sample
/// order (the same figures for any count); so in compareOutputs.
llvm::Expected<std::vector<LayerError>> layerErrors(func::FuncOp f32, func::FuncOp quantized,
                                                    llvm::ArrayRef<std::vector<Tensor>> samples,
                                                    unsigned threads = 1);

/// The outputs of `quantized` against those of `f32`, over all samples.
/// `f32Outputs`, where given, keeps f32's outputs on these samples from one
/// call to the next (the first call fills it): --accuracy-target compares
/// one f32 model with many quantized ones.
llvm::Expected<std::vector<OutputAgreement>>
compareOutputs(func::FuncOp f32, func::FuncOp quantized,
               llvm::ArrayRef<std::vector<Tensor>> samples, unsigned threads = 1,
               std::vector<llvm::SmallVector<Tensor>> *f32Outputs = nullptr);

/// The report as Markdown.
std::string accuracyReportMarkdown(llvm::StringRef title, llvm::StringRef settings,
                                   int64_t samples, llvm::ArrayRef<LayerError> layers,
                                   llvm::ArrayRef<OutputAgreement> outputs,
                                   llvm::ArrayRef<std::string> keptF32);

} // namespace mlir::nunc

#endif // NUNC_QUANTIZE_ACCURACYREPORT_H
