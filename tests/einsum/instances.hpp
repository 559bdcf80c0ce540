#pragma once
// The einsum instances of tests/data/instances/ for tests and
// benchmarks: loading (column-major form), the stored paths, and operands
// from the counter-based generator that make_instance_reference.py mirrors.
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tenferro/einsum.hpp"

namespace tenferro::testing {

struct EinsumInstance {
  std::string name;
  std::string subscripts;  // format_string_colmajor
  std::vector<Shape> shapes;  // shapes_colmajor
  EinsumSpec spec;
  std::vector<std::pair<int, int>> opt_flops, opt_size;
};

inline std::vector<std::pair<int, int>> read_pairs(const nlohmann::json& j) {
  std::vector<std::pair<int, int>> p;
  for (const auto& step : j) p.emplace_back(step.at(0).get<int>(), step.at(1).get<int>());
  return p;
}

/// Every einsum instance (files with "paths"), sorted by name.
inline std::vector<EinsumInstance> load_instances(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<EinsumInstance> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    nlohmann::json j = nlohmann::json::parse(in);
    if (!j.contains("paths")) continue;
    EinsumInstance inst;
    inst.name = f.stem().string();
    inst.subscripts = j.at("format_string_colmajor").get<std::string>();
    std::vector<std::int64_t> ranks;
    for (const auto& s : j.at("shapes_colmajor")) {
      Shape shape;
      for (const auto& e : s) shape.push_back(e.get<std::int64_t>());
      ranks.push_back(static_cast<std::int64_t>(shape.size()));
      inst.shapes.push_back(shape);
    }
    inst.spec = parse_einsum(inst.subscripts, ranks);
    inst.opt_flops = read_pairs(j.at("paths").at("opt_flops").at("path"));
    inst.opt_size = read_pairs(j.at("paths").at("opt_size").at("path"));
    out.push_back(std::move(inst));
  }
  return out;
}

inline std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

inline std::uint64_t splitmix_at(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Operand k (f64, column-major): uniform [-1, 1) times sqrt(3) times the
/// product over its summed labels of extent^(-1 / (2 * occurrences)), so
/// that contractions stay of order one.
inline Tensor instance_operand(const EinsumInstance& inst, std::size_t k) {
  const EinsumSpec& s = inst.spec;
  std::vector<std::int64_t> sizes = einsum_label_sizes(s, inst.shapes);
  std::map<std::int64_t, int> count;
  for (const DimVec& in : s.inputs) {
    DimVec u = in;
    std::sort(u.begin(), u.end());
    for (std::size_t i = 0; i < u.size(); ++i)
      if (i == 0 || u[i] != u[i - 1]) ++count[u[i]];
  }
  double scale = std::sqrt(3.0);
  DimVec labels = s.inputs[k];
  std::sort(labels.begin(), labels.end());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0 && labels[i] == labels[i - 1]) continue;
    if (std::find(s.output.begin(), s.output.end(), labels[i]) != s.output.end()) continue;
    scale *= std::pow(static_cast<double>(sizes[static_cast<std::size_t>(labels[i])]),
                      -1.0 / (2.0 * count[labels[i]]));
  }
  const std::uint64_t seed = fnv1a(inst.name) ^ ((k + 1) * 0x9E3779B97F4A7C15ull);
  Tensor t = Tensor::empty(inst.shapes[k], DType::f64);
  std::span<double> d = t.host_data<double>();
  for (std::size_t i = 0; i < d.size(); ++i) {
    double u = static_cast<double>(splitmix_at(seed, i) >> 11) * 0x1.0p-53;
    d[i] = (2.0 * u - 1.0) * scale;
  }
  return t;
}

}  // namespace tenferro::testing
