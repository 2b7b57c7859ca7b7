//===- Calibration.h - activation ranges for static int8 --------*- C++ -*-===//
//
// Post-training calibration: run the fused f32 model over sample inputs in
// the reference evaluator, collect statistics of the input of every linear
// op, and choose a u8 range per input (min-max, a percentile, the range
// that minimizes the quantization MSE, or the one that minimizes the KL
// divergence of the quantized distribution: entropy). The result is a human-readable JSON
// profile, so a rebuild can load it instead of recalibrating.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_QUANTIZE_CALIBRATION_H
#define NUNC_QUANTIZE_CALIBRATION_H

#include "nunc/Interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::nunc {

/// The u8 quantization of one activation tensor.
struct ActivationRange {
  double min = 0, max = 0; // observed over the samples
  double lo = 0, hi = 0;   // the range chosen (contains 0)
  double scale = 1;
  int64_t zeroPoint = 0;
  /// Mean of each input channel (a linear input's last dim, a conv input's
  /// dim 1) over the samples: int8 weights shift each output by the mean
  /// input times their rounding error, and bias correction takes that back.
  std::vector<float> channelMean;
  /// Mean of the squared values over the samples (NaN: not measured, a
  /// profile written before it was): with the grid's rounding noise,
  /// scale^2 / 12, and clipSquare it estimates the grid's SNR (gridSnrDb).
  double meanSquare = std::numeric_limits<double>::quiet_NaN();
  /// Mean squared error of clamping the samples' values to [lo, hi] (the
  /// histogram methods clip; 0 for minmax): clippingMeanSquare.
  double clipSquare = 0;
  /// 10 log10(meanSquare / (scale^2 / 12 + clipSquare)), NaN where
  /// unmeasured.
  double gridSnrDb() const;
};

/// SmoothQuant-style smoothing (nunc-smooth-activations): a LayerNorm
/// output that feeds linear ops is divided by s_j per channel (a second
/// LayerNorm with scale / s and bias / s) and those linears' weight rows are
/// multiplied by s_j, so outlier channels stop setting the u8 range of every
/// other channel. s_j = max|x_j|^alpha / max|W_j|^(1 - alpha) over the
/// calibration samples and the consumers' weights.
struct Smoothing {
  double alpha = 0.5;
  /// One factor per channel, keyed by layerNormKey() of the LayerNorm.
  std::map<std::string, std::vector<float>> factors;
};

struct CalibrationProfile {
  std::string method; // "minmax", "percentile=99.99", "mse", "entropy"
  int64_t samples = 0;
  /// Keyed by quantizationKey() of the linear or conv op whose input this is
  /// (after smoothing, when there is one).
  std::map<std::string, ActivationRange> inputs;
  std::optional<Smoothing> smoothing;

  std::string toJson() const;
  static llvm::Expected<CalibrationProfile> fromJson(llvm::StringRef text);
  /// Reads and parses the profile at `path`; errors name the file.
  static llvm::Expected<CalibrationProfile> read(llvm::StringRef path);
};

/// Observed values of one tensor: counts in equal bins over [lo, hi].
/// `zeros` of them are exact zeros (a Relu's output is half zeros); they lie
/// in the bin holding 0 but every range's grid represents them exactly.
struct ValueHistogram {
  double lo = 0, hi = 0;
  std::vector<double> counts;
  double zeros = 0;
};

/// The range a histogram-based method ("percentile=P", "mse", "entropy")
/// picks; [lo, hi] of the histogram for any other.
std::pair<double, double> chooseRange(llvm::StringRef method, const ValueHistogram &h);

/// The mean squared error of clamping h's values to [lo, hi], each bin's
/// values taken at its center, over all of h's values.
double clippingMeanSquare(const ValueHistogram &h, double lo, double hi);

/// A stable name for a linear or conv op: its first ONNX node (the
/// MatMul/Gemm/Conv), or "linear#<index>" / "conv#<index>" in program order
/// when the IR carries no ONNX locations; for an attention, its ONNX
/// Softmax (or onnxruntime's attention op) node, else its first node, else
/// "attention#<index>"; for a gather (an embedding table), its Gather node
/// or "gather#<index>".
std::string quantizationKey(Operation *op);

/// The quantizationKey()s of the layers under `root` (linear, conv and
/// attention ops, gathers from a constant f32 table) that one of `patterns`
/// names: one of the ONNX node names fused into the layer or its key, or a
/// glob over them (llvm::GlobPattern: `*`, `?`, `[...]`, backslash escapes).
/// Patterns that name no layer are an error that lists them all.
llvm::Expected<std::vector<std::string>> keysNamedBy(Operation *root,
                                                     llvm::ArrayRef<std::string> patterns);

/// A stable name for a layer_norm op: its first ONNX node, or
/// "layer_norm#<index>" in program order.
std::string layerNormKey(Operation *op);

/// Whether `op` is one the int8 pass may quantize (and calibration observes):
/// linear, conv or fused_conv.
bool isQuantizable(Operation *op);

/// The int8 conv (quantized_conv) that writes the input of `op`, a
/// depthwise conv (conv or fused_conv, one filter per channel); null for
/// other ops and inputs.
Operation *int8ProducerOfDepthwise(Operation *op);

/// Whether `op` is a depthwise conv (conv or fused_conv, one filter per
/// channel) whose input an int8 conv rounds to a u8 grid
/// (`output_quantization`), as static int8 quantization hands them over
/// (and, where the integer depthwise kernel takes the filter's shape,
/// rounds the filter to an s8 grid).
bool isInt8Depthwise(Operation *op);

/// Checks `method` ("minmax", "percentile", "percentile=P" with 0 < P <= 100,
/// "mse", "entropy"); returns it normalized (percentile defaults to 99.99).
llvm::Expected<std::string> parseCalibrationMethod(llvm::StringRef method);

/// Runs `func` (fused, static shapes) on every sample (one tensor per
/// function input, in order) and returns the range of each linear op's input.
/// A NaN or infinite value in such an input is an error naming the op and
/// the sample (`sampleNames[i]`, where given, says where sample i came from).
/// Up to `threads` samples are evaluated at once; their statistics are
/// summed in sample order, so the profile is the same for any count.
llvm::Expected<CalibrationProfile>
calibrate(func::FuncOp func, llvm::ArrayRef<std::vector<Tensor>> samples,
          llvm::StringRef method, llvm::ArrayRef<std::string> sampleNames = {},
          unsigned threads = 1);

/// The largest |value| of each channel (last axis) of every LayerNorm output
/// that a linear op reads, over the samples, keyed by layerNormKey().
llvm::Expected<std::map<std::string, std::vector<float>>>
layerNormChannelAbsMax(func::FuncOp func, llvm::ArrayRef<std::vector<Tensor>> samples);

} // namespace mlir::nunc

#endif // NUNC_QUANTIZE_CALIBRATION_H
