// Program text and Graphviz output.
#include "tenferro/runtime/program.hpp"

#include <atomic>
#include <sstream>

namespace tenferro {

std::shared_ptr<const Program::Identity> Program::fresh_identity() {
  static std::atomic<std::uint64_t> next{0};
  return std::make_shared<const Identity>(Identity{next.fetch_add(1, std::memory_order_relaxed) + 1});
}

std::string Instruction::name() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::primitive:
      os << op_name(op);
      break;
    case Kind::family:
      os << family->name;
      break;
    case Kind::fused:
      os << "fused" << fused;
      break;
  }
  return os.str();
}

namespace {

void slots(std::ostream& os, const std::vector<int>& s) {
  for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << "%" << s[i];
}

std::string attrs_text(const Instruction& ins) {
  std::ostringstream os;
  if (ins.kind == Instruction::Kind::primitive) os << ins.attrs;
  if (ins.kind == Instruction::Kind::family) os << ins.family_attrs;
  return os.str();
}

}  // namespace

std::string Program::to_text() const {
  std::ostringstream os;
  os << "program(";
  for (std::size_t i = 0; i < inputs.size(); ++i)
    os << (i ? ", " : "") << inputs[i].name << ": " << inputs[i].meta;
  os << ") -> (";
  slots(os, outputs);
  os << ")\n";
  for (const ProgramInput& in : inputs) os << "  %" << in.slot << " = input \"" << in.name << "\" : " << in.meta << "\n";
  for (const auto& [slot, t] : constants) {
    os << "  %" << slot << " = constant : " << slot_meta[static_cast<std::size_t>(slot)];
    if (t.numel() <= 8 && t.device().is_cpu()) {
      os << " [";
      Tensor flat = t.contiguous().reshape({t.numel()});
      for (std::int64_t i = 0; i < flat.numel(); ++i) os << (i ? ", " : "") << flat.select(0, i).item();
      os << "]";
    }
    os << "\n";
  }
  for (const Instruction& ins : code) {
    os << "  ";
    slots(os, ins.outputs);
    os << " = " << ins.name() << "(";
    slots(os, ins.inputs);
    os << ")";
    std::string a = attrs_text(ins);
    if (!a.empty()) os << " {" << a << "}";
    os << " : ";
    for (std::size_t i = 0; i < ins.outputs.size(); ++i)
      os << (i ? ", " : "") << slot_meta[static_cast<std::size_t>(ins.outputs[i])];
    if (ins.hoisted) os << "  ; constant (computed once per runtime)";
    if (ins.inplace >= 0) os << "  ; in place of %" << ins.inputs[static_cast<std::size_t>(ins.inplace)];
    if (!ins.release.empty()) {
      os << "  ; release ";
      slots(os, ins.release);
    }
    os << "\n";
  }
  os << "  return ";
  slots(os, outputs);
  os << "\n";
  return os.str();
}

std::string Program::to_dot() const {
  std::ostringstream os;
  os << "digraph program {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  std::vector<std::string> producer(static_cast<std::size_t>(num_slots()));
  for (const ProgramInput& in : inputs) {
    std::string id = detail::str("s", in.slot);
    producer[static_cast<std::size_t>(in.slot)] = id;
    os << "  " << id << " [shape=ellipse, label=\"" << in.name << "\\n" << in.meta << "\"];\n";
  }
  for (const auto& [slot, t] : constants) {
    std::string id = detail::str("s", slot);
    producer[static_cast<std::size_t>(slot)] = id;
    os << "  " << id << " [shape=note, label=\"constant\\n" << slot_meta[static_cast<std::size_t>(slot)]
       << "\"];\n";
  }
  for (std::size_t i = 0; i < code.size(); ++i) {
    const Instruction& ins = code[i];
    std::string id = detail::str("i", i);
    std::string label = ins.name();
    for (char& c : label)
      if (c == '"') c = '\'';
    os << "  " << id << " [label=\"" << label;
    for (int o : ins.outputs) os << "\\n%" << o << " : " << slot_meta[static_cast<std::size_t>(o)];
    os << "\"];\n";
    for (int s : ins.inputs) os << "  " << producer[static_cast<std::size_t>(s)] << " -> " << id << ";\n";
    for (int o : ins.outputs) producer[static_cast<std::size_t>(o)] = id;
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    os << "  out" << k << " [shape=ellipse, label=\"output " << k << "\"];\n";
    os << "  " << producer[static_cast<std::size_t>(outputs[k])] << " -> out" << k << ";\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace tenferro
