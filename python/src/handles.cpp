// Eager AD and traced programs from Python: `EagerTensor` (requires_grad_,
// backward, grad), `Dim`, `TracedTensor` (input, constant, the shared
// methods), `compile` -> `Program` (run many times with keyword or
// positional inputs on the program runtime) and the AD transforms grad /
// vjp / jvp / hvp on traced tensors, vjp / jvp of Python functions of eager
// tensors.
#include <nanobind/stl/function.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string_view.h>

#include <sstream>
#include <tenferro/ad.hpp>

#include "common.hpp"

namespace tfpy {

using namespace tenferro;

namespace {

/// A compiled program and the runtime it runs on.
struct PyProgram {
  Program program;
};

nb::object dim_to_py(const Dim& d) {
  if (auto v = d.try_value()) return nb::int_(*v);
  return nb::cast(d);
}

nb::tuple sym_shape(const SymShape& s) {
  nb::list out;
  for (const Dim& d : s) out.append(dim_to_py(d));
  return nb::tuple(out);
}

std::vector<TracedTensor> traced_list(nb::handle outputs) {
  std::vector<TracedTensor> out;
  if (nb::isinstance<TracedTensor>(outputs)) {
    out.push_back(nb::cast<TracedTensor>(outputs));
  } else {
    for (nb::handle h : outputs) out.push_back(nb::cast<TracedTensor>(h));
  }
  return out;
}

std::vector<EagerTensor> eager_list(nb::handle seq) {
  std::vector<EagerTensor> out;
  for (nb::handle h : seq) {
    if (nb::isinstance<EagerTensor>(h)) out.push_back(nb::cast<EagerTensor>(h));
    else out.push_back(eager_runtime().tensor(to_tensor(h)));
  }
  return out;
}

/// A Python function of eager tensors as an EagerFunction (called with the
/// GIL held: the transforms run it on this thread).
EagerFunction eager_function(nb::callable f) {
  return [f](const std::vector<EagerTensor>& in) {
    nb::list args;
    for (const auto& t : in) args.append(nb::cast(t));
    nb::object r = f(*args);
    if (nb::isinstance<EagerTensor>(r)) return std::vector<EagerTensor>{nb::cast<EagerTensor>(r)};
    return eager_list(r);
  };
}

}  // namespace

void bind_handles(nb::module_& m) {
  // ---- Dim: a symbolic extent
  nb::class_<Dim>(m, "Dim",
                  "An extent of a traced tensor: a constant or a named symbol bound when a program runs.\n\n"
                  "    n = tf.Dim(\"n\"); p = tf.TracedTensor.input(\"p\", tf.float64, (n, 3))")
      .def(nb::init_implicit<std::int64_t>(), nb::arg("value"))
      .def(nb::init<std::string_view>(), nb::arg("symbol"))
      .def_prop_ro("is_constant", &Dim::is_constant)
      .def_prop_ro("value", &Dim::try_value, "The constant value, or None when symbolic.")
      .def("__add__", [](const Dim& a, const Dim& b) { return a + b; }, nb::is_operator())
      .def("__radd__", [](const Dim& a, const Dim& b) { return b + a; }, nb::is_operator())
      .def("__sub__", [](const Dim& a, const Dim& b) { return a - b; }, nb::is_operator())
      .def("__mul__", [](const Dim& a, const Dim& b) { return a * b; }, nb::is_operator())
      .def("__rmul__", [](const Dim& a, const Dim& b) { return b * a; }, nb::is_operator())
      .def("__eq__", [](const Dim& a, const Dim& b) { return a == b; }, nb::is_operator())
      .def("__hash__", [](const Dim& d) { return std::hash<std::string>()(d.to_string()); })
      .def("__str__", &Dim::to_string)
      .def("__repr__", [](const Dim& d) { return "Dim(" + d.to_string() + ")"; });

  // ---- eager tensors
  nb::class_<EagerTensor> eager(
      m, "EagerTensor",
      "A tensor computed at once that records its history when it depends on a leaf that requires a "
      "gradient; `backward()` accumulates gradients into such leaves (`leaf.grad`).\n\n"
      "    w = tf.from_dlpack(x).requires_grad_()\n"
      "    tf.linalg.svdvals(w).sum().backward(); w.grad");
  eager.def_prop_ro("value", &EagerTensor::value, "The computed tensor (no copy).")
      .def_prop_ro("dtype", &EagerTensor::dtype)
      .def_prop_ro("shape", [](const EagerTensor& t) { return nb::tuple(nb::cast(t.concrete_shape().to_vector())); })
      .def_prop_ro("ndim", &EagerTensor::ndim)
      .def_prop_ro("is_leaf", &EagerTensor::is_leaf)
      .def_prop_ro(
          "grad",
          [](const EagerTensor& t) -> std::optional<Tensor> {
            EagerTensor g = t.grad();
            if (!g.defined()) return std::nullopt;
            return g.value();
          },
          "The gradient accumulated by backward() (a Tensor), or None before the first backward.")
      .def("requires_grad_", &EagerTensor::requires_grad,
           "A new leaf with this value whose gradient backward() accumulates.")
      .def("zero_grad", &EagerTensor::zero_grad, "Resets the accumulated gradient.")
      .def("detach", &EagerTensor::detach, "The same value without history.")
      .def(
          "backward",
          [](const EagerTensor& y, std::optional<EagerTensor> seed) {
            nb::gil_scoped_release nogil;
            if (seed) backward(y, *seed);
            else backward(y);
          },
          nb::arg("seed") = nb::none(),
          "Accumulates d(self)/d(leaf) into every leaf that requires a gradient; self must be a real "
          "scalar unless `seed` (the cotangent) is given.")
      .def("transpose",
           [](const EagerTensor& a, std::optional<std::vector<std::int64_t>> perm) {
             return perm ? a.transpose(DimVec(*perm)) : a.transpose();
           },
           nb::arg("perm") = nb::none())
      .def("reshape", [](const EagerTensor& a, const std::vector<Dim>& s) { return a.reshape(s); }, nb::arg("shape"))
      .def("__dlpack__", [](const EagerTensor& t, nb::kwargs kw) {
        return nb::cast(t.value()).attr("__dlpack__")(**kw);
      })
      .def("__dlpack_device__", [](const EagerTensor& t) { return nb::cast(t.value()).attr("__dlpack_device__")(); })
      .def("__repr__", [](const EagerTensor& t) {
        std::ostringstream os;
        os << "EagerTensor(" << t.value() << ")";
        return os.str();
      });
  bind_common(eager);

  // ---- traced tensors
  nb::class_<TracedTensor> traced(
      m, "TracedTensor",
      "A tensor whose operations are recorded, to be compiled once (`tf.compile`) and run many times.\n\n"
      "    p = tf.TracedTensor.input(\"p\", tf.float64, (tf.Dim(\"n\"), 3))\n"
      "    prog = tf.compile((p * p).sum(0)); outs = prog(p=t)");
  traced.def_static("input", &TracedTensor::input, nb::arg("name"), nb::arg("dtype"), nb::arg("shape"),
                    "A named program input; extents are ints or `Dim` symbols.")
      .def_static("constant", [](nb::handle v) { return TracedTensor::constant(to_tensor(v)); }, nb::arg("value"),
                  "A constant (a Tensor or any DLPack array; its memory is captured, not copied).")
      .def_prop_ro("dtype", &TracedTensor::dtype)
      .def_prop_ro("shape", [](const TracedTensor& t) { return sym_shape(t.shape()); },
                   "Extents: ints, or `Dim`s where symbolic.")
      .def_prop_ro("ndim", &TracedTensor::ndim)
      .def("transpose",
           [](const TracedTensor& a, std::optional<std::vector<std::int64_t>> perm) {
             return perm ? a.transpose(DimVec(*perm)) : a.transpose();
           },
           nb::arg("perm") = nb::none())
      .def("reshape", [](const TracedTensor& a, const std::vector<Dim>& s) { return a.reshape(s); }, nb::arg("shape"))
      .def("__repr__", [](const TracedTensor& t) {
        std::ostringstream os;
        os << "TracedTensor(" << dtype_name(t.dtype()) << t.shape() << ")";
        return os.str();
      });
  bind_common(traced);

  // ---- compiled programs
  nb::class_<PyProgram>(m, "Program",
                        "A compiled traced computation: call it with the inputs by name (or in order); it "
                        "returns a list of Tensors. Symbolic extents are bound per call, nothing is recompiled.")
      .def(
          "__call__",
          [](const PyProgram& p, nb::args args, nb::kwargs kwargs) {
            TF_CHECK(args.size() == 0 || kwargs.size() == 0, ValueError, "Program.__call__",
                     "pass the inputs either by name or by position, not both (", args.size(), " positional, ",
                     kwargs.size(), " named)");
            RunInputs in;
            if (args.size() > 0) {
              std::vector<Tensor> pos;
              for (nb::handle h : args) pos.push_back(to_tensor(h));
              in = RunInputs(std::move(pos));
            } else {
              std::vector<std::pair<std::string, Tensor>> named;
              for (auto [k, v] : kwargs) named.emplace_back(nb::cast<std::string>(k), to_tensor(v));
              in = RunInputs(std::move(named));
            }
            nb::gil_scoped_release nogil;
            return program_runtime().run_compiled(p.program, in);
          },
          "outs = prog(x=t) or prog(t): runs the program; a list of Tensors.")
      .def_prop_ro("id", [](const PyProgram& p) { return p.program.id(); },
                   "The identity of this compiled program (the runtime caches its plans by it).")
      .def_prop_ro("text", [](const PyProgram& p) { return p.program.to_text(); }, "The program as text.")
      .def_prop_ro("inputs", [](const PyProgram& p) {
        std::vector<std::string> names;
        for (const auto& i : p.program.inputs) names.push_back(i.name);
        return names;
      }, "Input names, in positional order.")
      .def("__repr__", [](const PyProgram& p) { return p.program.to_text(); });

  m.def(
      "compile",
      [](nb::handle outputs, bool fusion, bool cse, bool constant_folding) {
        auto outs = traced_list(outputs);
        CompileOptions opts;
        opts.fusion = fusion;
        opts.cse = cse;
        opts.constant_folding = constant_folding;
        nb::gil_scoped_release nogil;
        return PyProgram{GraphCompiler(opts).compile(outs)};
      },
      nb::arg("outputs"), nb::arg("fusion") = true, nb::arg("cse") = true, nb::arg("constant_folding") = true,
      "Compiles a TracedTensor (or a list of them) into a Program, once.");
  m.def("_cached_programs", []() { return program_runtime().cached_programs(); },
        "How many programs the program runtime holds cache entries for (for tests).");

  // ---- AD on traced tensors
  m.def("grad", [](const TracedTensor& y, const TracedTensor& x) { return grad(y, x); }, nb::arg("y"), nb::arg("wrt"),
        "Gradient of the real scalar `y` with respect to `wrt` (traced).");
  m.def("grad", [](const TracedTensor& y, const std::vector<TracedTensor>& xs) { return grad(y, xs); },
        nb::arg("y"), nb::arg("wrt"));
  m.def("vjp", [](const TracedTensor& y, const TracedTensor& x, const TracedTensor& ct) { return vjp(y, x, ct); },
        nb::arg("y"), nb::arg("wrt"), nb::arg("cotangent"),
        "Vector-Jacobian product (traced): the adjoint of dy/d(wrt) applied to `cotangent`.");
  m.def("jvp", [](const TracedTensor& y, const TracedTensor& x, const TracedTensor& t) { return jvp(y, x, t); },
        nb::arg("y"), nb::arg("wrt"), nb::arg("tangent"),
        "Jacobian-vector product (traced): the derivative of `y` when `wrt` moves along `tangent`.");
  m.def("hvp", [](const TracedTensor& y, const TracedTensor& x, const TracedTensor& v) { return hvp(y, x, v); },
        nb::arg("y"), nb::arg("wrt"), nb::arg("v"), "Hessian-vector product (traced).");
  // ---- functional AD on eager tensors
  m.def(
      "vjp",
      [](nb::callable f, nb::handle inputs, nb::handle cotangents) {
        auto r = vjp(eager_runtime(), eager_function(f), eager_list(inputs), eager_list(cotangents));
        return std::make_pair(r.first, r.second);
      },
      nb::arg("f"), nb::arg("inputs"), nb::arg("cotangents"),
      "(outputs, input cotangents) of the Python function `f` of eager tensors at `inputs`.");
  m.def(
      "jvp",
      [](nb::callable f, nb::handle inputs, nb::handle tangents) {
        auto r = jvp(eager_runtime(), eager_function(f), eager_list(inputs), eager_list(tangents));
        return std::make_pair(r.first, r.second);
      },
      nb::arg("f"), nb::arg("inputs"), nb::arg("tangents"),
      "(outputs, output tangents) of the Python function `f` of eager tensors at `inputs`.");
}

}  // namespace tfpy
