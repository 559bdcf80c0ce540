#pragma once
// The einsum instances of tenferro's tests/data/instances (the column-major
// form of each file with "paths") and seeded operands for them, for the
// instance test and the benchmark.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <tenferro/einsum.hpp>
#include <tenferro/tensor.hpp>

namespace tfblis_test {

struct Instance {
  std::string name;
  tenferro::EinsumSpec spec;
  std::vector<tenferro::Shape> shapes;
  std::vector<std::pair<int, int>> opt_flops;  // the stored opt_flops path
};

/// Every instance in `dir`, sorted by file name (ValueError when none).
inline std::vector<Instance> load_instances(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Instance> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    const nlohmann::json j = nlohmann::json::parse(in);
    if (!j.contains("paths")) continue;
    Instance inst;
    inst.name = f.stem().string();
    std::vector<std::int64_t> ranks;
    for (const auto& s : j.at("shapes_colmajor")) {
      tenferro::Shape shape;
      for (const auto& e : s) shape.push_back(e.get<std::int64_t>());
      ranks.push_back(static_cast<std::int64_t>(shape.size()));
      inst.shapes.push_back(shape);
    }
    inst.spec = tenferro::parse_einsum(j.at("format_string_colmajor").get<std::string>(), ranks);
    for (const auto& step : j.at("paths").at("opt_flops").at("path"))
      inst.opt_flops.emplace_back(step.at(0).get<int>(), step.at(1).get<int>());
    out.push_back(std::move(inst));
  }
  if (out.empty())
    throw tenferro::ValueError("load_instances: no einsum instance in '" + dir + "'");
  return out;
}

/// Operand k, uniform in [-1, 1), scaled so that every summed label of
/// extent n that appears in c operands contributes n^(-1/(2c)) to each:
/// contractions of the whole network stay of order one.
inline tenferro::Tensor instance_operand(const Instance& inst, std::size_t k,
                                         tenferro::DType dtype) {
  const auto& s = inst.spec;
  std::map<std::int64_t, std::int64_t> extent;
  std::map<std::int64_t, int> operands_with;
  for (std::size_t i = 0; i < s.inputs.size(); ++i) {
    std::vector<std::int64_t> seen;
    for (std::size_t a = 0; a < s.inputs[i].size(); ++a) {
      const std::int64_t label = s.inputs[i][a];
      extent[label] = inst.shapes[i][a];
      if (std::find(seen.begin(), seen.end(), label) == seen.end()) {
        seen.push_back(label);
        ++operands_with[label];
      }
    }
  }
  double scale = std::sqrt(3.0);
  std::vector<std::int64_t> done;
  for (std::int64_t label : s.inputs[k]) {
    if (std::find(done.begin(), done.end(), label) != done.end()) continue;
    done.push_back(label);
    if (std::find(s.output.begin(), s.output.end(), label) != s.output.end()) continue;
    scale *= std::pow(static_cast<double>(extent[label]), -1.0 / (2.0 * operands_with[label]));
  }
  const std::uint64_t seed = std::hash<std::string>()(inst.name) ^ (k * 0x9E3779B97F4A7C15ull);
  return tenferro::Tensor::uniform(inst.shapes[k], dtype, seed, -scale, scale);
}

}  // namespace tfblis_test
