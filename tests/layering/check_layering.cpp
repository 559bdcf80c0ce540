// The layering check: reads the layer table of docs/architecture.md and fails
// when a file of one module includes a header of a module the table does not
// let it use, when a module's CMake target links such a module, when a
// public header includes a BLAS, LAPACK, FFT or CUDA header, or (with --lib)
// when a module's library defines member functions of a class that another
// module declares (a declaration in one layer defined in another inverts the
// layers at link level even when every include is allowed).
//
//   tenferro_layering_check --root DIR [--table FILE] [--links FILE] [--allow FILE]
//                           [--nm NM --lib MODULE=LIBRARY ...]
//
// --root   the repository root; src/<module>/ and include/tenferro/<module>[/.hpp]
//          are scanned (paths below are relative to it)
// --table  the markdown file with the layer table (default docs/architecture.md)
// --links  one line per CMake target, "<module>: <link item>;<link item>;..."
//          (written at configure time by tests/layering/CMakeLists.txt)
// --allow  known violations, one per line (see allowlist.txt); an entry that
//          matches nothing is an error too, so the list only shrinks (entries
//          of a check that this run does not do are not judged)
// --lib    a module's built library, read with `NM -C --defined-only`
//
// Exit status: 0 clean, 1 violations (each printed as "file:line: rule"), 2
// usage or table errors. Standard library only, so that the check builds
// without the rest of tenferro.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Layer {
  std::string module;          // "ops" for the target tenferro::ops
  std::set<std::string> uses;  // modules it may use (without itself)
  int row = 0;                 // line of its table row
};

struct Violation {
  std::string where;    // "path:line"
  std::string key;      // what an allowlist line names: "path -> header" or "tenferro::a -> tenferro::b"
  std::string message;  // the rule that is broken
};

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string t = trim(row);
  if (t.size() < 2 || t.front() != '|') return cells;
  std::string cell;
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i] == '|') {
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += t[i];
    }
  }
  return cells;
}

// The module names written as `tenferro::<name>` in a table cell, in order.
std::vector<std::string> targets_in(const std::string& cell) {
  std::vector<std::string> out;
  const std::string prefix = "tenferro::";
  for (std::size_t at = cell.find(prefix); at != std::string::npos; at = cell.find(prefix, at + 1)) {
    std::size_t end = at + prefix.size();
    while (end < cell.size() && (std::isalnum(static_cast<unsigned char>(cell[end])) || cell[end] == '_')) ++end;
    if (end > at + prefix.size()) out.push_back(cell.substr(at + prefix.size(), end - at - prefix.size()));
  }
  return out;
}

[[noreturn]] void fail_usage(const std::string& msg) {
  std::cerr << "layering check: " << msg << "\n";
  std::exit(2);
}

// Parses the first table whose header has a "module" column and a "may use"
// column. Each row names one target in the module column and the targets it
// may use in the "may use" column; those must come from earlier rows (an
// arrow only points down).
std::map<std::string, Layer> read_table(const fs::path& file) {
  std::ifstream in(file);
  if (!in) fail_usage("cannot read the layer table " + file.string());
  std::map<std::string, Layer> layers;
  std::string line;
  int lineno = 0, module_col = -1, uses_col = -1;
  bool in_table = false, done = false;
  while (std::getline(in, line) && !done) {
    ++lineno;
    std::vector<std::string> cells = split_cells(line);
    if (cells.empty()) {
      if (in_table) done = true;
      continue;
    }
    if (!in_table) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        std::string c = lower(cells[i]);
        if (c.rfind("module", 0) == 0) module_col = static_cast<int>(i);
        if (c.find("may use") != std::string::npos) uses_col = static_cast<int>(i);
      }
      if (module_col >= 0 && uses_col >= 0) in_table = true;
      else module_col = uses_col = -1;
      continue;
    }
    if (cells[0].find_first_not_of("-: ") == std::string::npos) continue;  // the |---| row
    const auto where = file.string() + ":" + std::to_string(lineno);
    if (static_cast<int>(cells.size()) <= std::max(module_col, uses_col))
      fail_usage(where + ": table row has too few cells");
    std::vector<std::string> names = targets_in(cells[static_cast<std::size_t>(module_col)]);
    if (names.size() != 1) fail_usage(where + ": the module column must name exactly one tenferro:: target");
    Layer layer{names[0], {}, lineno};
    if (layers.count(layer.module)) fail_usage(where + ": module " + layer.module + " appears twice");
    for (const std::string& u : targets_in(cells[static_cast<std::size_t>(uses_col)])) {
      if (!layers.count(u))
        fail_usage(where + ": " + layer.module + " may use tenferro::" + u +
                   ", which is not a row above it (arrows only point down)");
      layer.uses.insert(u);
    }
    layers[layer.module] = layer;
  }
  if (layers.empty()) fail_usage(file.string() + ": no table with a \"module\" and a \"may use\" column");
  return layers;
}

std::string join_uses(const Layer& l) {
  if (l.uses.empty()) return "no other module";
  std::string s;
  for (const std::string& u : l.uses) s += (s.empty() ? "only " : ", ") + u;
  return s;
}

// The module a repository path belongs to: src/<m>/..., include/tenferro/<m>/...
// or include/tenferro/<m>.hpp.
std::optional<std::string> module_of(const fs::path& rel) {
  std::vector<std::string> parts;
  for (const auto& p : rel) parts.push_back(p.string());
  if (parts.size() >= 3 && parts[0] == "src") return parts[1];
  if (parts.size() >= 3 && parts[0] == "include" && parts[1] == "tenferro") {
    if (parts.size() == 3) return fs::path(parts[2]).stem().string();
    return parts[2];
  }
  return std::nullopt;
}

// Headers that must stay out of public headers (CONVENTIONS: thin public headers).
bool is_provider_header(const std::string& h) {
  static const char* prefixes[] = {"cblas", "lapack", "lapacke", "openblas", "f77blas", "blis",  "fftw3",
                                   "pocketfft", "cuda", "cublas", "cusolver", "cufft",   "nvrtc", "mkl"};
  std::string name = lower(h);
  for (const char* p : prefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

class Checker {
 public:
  Checker(fs::path root, std::map<std::string, Layer> layers) : root_(std::move(root)), layers_(std::move(layers)) {}

  void scan_sources() {
    for (const char* top : {"src", "include/tenferro"}) {
      fs::path dir = root_ / top;
      if (!fs::is_directory(dir)) continue;
      std::vector<fs::path> files;
      for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && is_source(e.path())) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) scan_file(f);
    }
  }

  void check_links(const fs::path& links) {
    std::ifstream in(links);
    if (!in) fail_usage("cannot read the link list " + links.string());
    std::string line;
    while (std::getline(in, line)) {
      auto colon = line.find(':');
      if (trim(line).empty() || colon == std::string::npos) continue;
      std::string module = trim(line.substr(0, colon));
      const Layer* layer = find_layer(module, "the CMake target tenferro::" + module, links.string());
      if (layer == nullptr) continue;
      std::stringstream items(line.substr(colon + 1));
      std::string item;
      while (std::getline(items, item, ';')) {
        std::optional<std::string> dep = module_of_link_item(trim(item));
        if (!dep || *dep == module || layer->uses.count(*dep)) continue;
        auto [file, lineno] = cmake_line_of(module, *dep);
        add({file + ":" + std::to_string(lineno), "tenferro::" + module + " -> tenferro::" + *dep,
             "the target tenferro::" + module + " links tenferro::" + *dep + "; the layer table lets " + module +
                 " use " + join_uses(*layer)});
      }
    }
  }

  // Drops allowlisted violations; returns the allowlist entries that matched nothing.
  // Definition entries ("<module> defines members of <Class>") are judged only
  // for the modules whose libraries were read.
  std::vector<std::string> apply_allowlist(const fs::path& allow, const std::set<std::string>& libs_read) {
    std::ifstream in(allow);
    if (!in) fail_usage("cannot read the allowlist " + allow.string());
    std::vector<std::string> stale;
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      std::string entry = trim(line.substr(0, line.find('#')));
      if (entry.empty()) continue;
      if (is_definition_key(entry) && !libs_read.count(entry.substr(0, entry.find(' ')))) continue;
      auto before = violations_.size();
      violations_.erase(std::remove_if(violations_.begin(), violations_.end(),
                                       [&](const Violation& v) { return v.key == entry; }),
                        violations_.end());
      if (violations_.size() == before)
        stale.push_back(allow.string() + ":" + std::to_string(lineno) + ": '" + entry +
                        "' matches no violation any more: remove it from the allowlist");
    }
    return stale;
  }

  const std::vector<Violation>& violations() const { return violations_; }

  // Records where each class (or struct) is declared: simple name -> modules.
  void scan_declarations() {
    for (const char* top : {"src", "include/tenferro"}) {
      fs::path dir = root_ / top;
      if (!fs::is_directory(dir)) continue;
      for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file() || !is_source(e.path())) continue;
        fs::path rel = fs::relative(e.path(), root_);
        std::optional<std::string> module = module_of(rel);
        if (!module) continue;
        std::ifstream in(e.path());
        std::string line;
        int lineno = 0;
        while (std::getline(in, line)) {
          ++lineno;
          std::optional<std::string> name = declared_class(line);
          if (!name) continue;
          auto& where = declared_[*name];
          if (!where.count(*module)) where[*module] = rel.string() + ":" + std::to_string(lineno);
        }
      }
    }
  }

  // Flags member functions that `module`'s library defines for classes that
  // only other modules declare.
  void check_definitions(const std::string& module, const fs::path& lib, const std::string& nm) {
    if (!fs::exists(lib))
      fail_usage("the library of module " + module + " is not built (" + lib.string() +
                 "): build every target first; the include and link checks alone need only this program");
    std::string cmd = nm + " -C --defined-only '" + lib.string() + "' 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    if (pipe == nullptr) fail_usage("cannot run " + cmd);
    std::map<std::string, std::vector<std::string>> foreign;  // class -> members defined here
    std::string line;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
      line += buf;
      if (line.empty() || line.back() != '\n') continue;
      line.pop_back();
      std::istringstream ls(line);
      std::string address, type, symbol;
      line.clear();
      if (!(ls >> address >> type) || type != "T") continue;
      std::getline(ls, symbol);
      std::optional<std::string> cls = class_of(trim(symbol));
      if (!cls) continue;
      auto it = declared_.find(*cls);
      if (it == declared_.end() || it->second.count(module)) continue;
      foreign[*cls].push_back(trim(symbol));
    }
    int status = pclose(pipe);
    if (status != 0) fail_usage("'" + cmd + "' failed (status " + std::to_string(status) + ")");
    for (const auto& [cls, members] : foreign) {
      const auto& [owner, where] = *declared_.at(cls).begin();
      std::string example = members.front().substr(0, members.front().find('('));
      add({where, module + " defines members of " + cls,
           "class " + cls + " is declared in module " + owner + " but " + std::to_string(members.size()) +
               " of its member functions are defined in tenferro::" + module + " (" +
               lib.filename().string() + "), e.g. " + example +
               "; a class's members are defined in its own module"});
    }
  }

 private:
  // The name of the class a line declares ("class Foo {", "template <class T>
  // struct Bar : Base"), not counting forward declarations; PascalCase names
  // only (the project's classes).
  static std::optional<std::string> declared_class(const std::string& line) {
    std::string t = trim(line);
    if (t.rfind("template", 0) == 0) {
      int depth = 0;
      std::size_t i = t.find('<');
      for (; i != std::string::npos && i < t.size(); ++i) {
        if (t[i] == '<') ++depth;
        if (t[i] == '>' && --depth == 0) break;
      }
      if (i == std::string::npos || i >= t.size()) return std::nullopt;
      t = trim(t.substr(i + 1));
    }
    for (const std::string& key : {std::string("class "), std::string("struct ")}) {
      if (t.rfind(key, 0) != 0) continue;
      std::string rest = trim(t.substr(key.size()));
      std::size_t end = 0;
      while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '_')) ++end;
      if (end == 0 || !std::isupper(static_cast<unsigned char>(rest[0]))) return std::nullopt;
      std::string after = trim(rest.substr(end));
      if (!after.empty() && after.back() == ';' && after.find('{') == std::string::npos) return std::nullopt;
      return rest.substr(0, end);
    }
    return std::nullopt;
  }

  static bool is_definition_key(const std::string& key) { return key.find(" defines members of ") != std::string::npos; }

  // The class of a demangled member-function symbol in namespace tenferro
  // ("tenferro::Tensor::matmul(...) const" -> "Tensor"), if any.
  static std::optional<std::string> class_of(const std::string& symbol) {
    auto start = symbol.find("tenferro::");
    if (start == std::string::npos || symbol.find("(anonymous namespace)") != std::string::npos) return std::nullopt;
    std::string name;
    int depth = 0;
    for (std::size_t i = start; i < symbol.size() && symbol[i] != '(' ; ++i) {
      if (symbol[i] == '<') ++depth;
      else if (symbol[i] == '>') --depth;
      else if (depth == 0) name += symbol[i];
    }
    std::vector<std::string> parts;
    for (std::size_t at = 0;;) {
      auto next = name.find("::", at);
      parts.push_back(name.substr(at, next == std::string::npos ? std::string::npos : next - at));
      if (next == std::string::npos) break;
      at = next + 2;
    }
    if (parts.size() < 3) return std::nullopt;  // tenferro::f: a free function
    const std::string& cls = parts[parts.size() - 2];
    if (cls.empty() || !std::isupper(static_cast<unsigned char>(cls[0]))) return std::nullopt;  // a namespace
    return cls;
  }

  static bool is_source(const fs::path& p) {
    static const std::set<std::string> exts{".hpp", ".h", ".cpp", ".cc", ".cu", ".cuh", ".def", ".inc"};
    return exts.count(p.extension().string()) > 0;
  }

  const Layer* find_layer(const std::string& module, const std::string& what, const std::string& where) {
    auto it = layers_.find(module);
    if (it != layers_.end()) return &it->second;
    add({where, "unknown module " + module,
         what + " belongs to module " + module + ", which has no row in the layer table: add one"});
    return nullptr;
  }

  std::optional<std::string> module_of_link_item(std::string item) {
    // Unwrap generator expressions such as $<BUILD_INTERFACE:x> and $<LINK_ONLY:x>.
    while (item.rfind("$<", 0) == 0 && item.back() == '>' && item.find(':') != std::string::npos)
      item = item.substr(item.find(':') + 1, item.size() - item.find(':') - 2);
    for (const std::string& prefix : {std::string("tenferro::"), std::string("tenferro_")}) {
      if (item.rfind(prefix, 0) == 0) {
        std::string m = item.substr(prefix.size());
        if (layers_.count(m)) return m;  // other tenferro_* targets (build flags) are not layers
      }
    }
    return std::nullopt;
  }

  // Where the module's CMake code names the dependency, for the report.
  std::pair<std::string, int> cmake_line_of(const std::string& module, const std::string& dep) {
    // The module's own src/<m>/CMakeLists.txt, else its tenferro_module(<m> ...)
    // call in the top-level CMakeLists.txt.
    for (const fs::path& rel : {fs::path("src") / module / "CMakeLists.txt", fs::path("CMakeLists.txt")}) {
      std::ifstream in(root_ / rel);
      std::string line;
      int lineno = 0;
      bool in_module = rel.has_parent_path();
      while (std::getline(in, line)) {
        ++lineno;
        if (auto at = line.find("tenferro_module("); at != std::string::npos && !rel.has_parent_path()) {
          std::string rest = line.substr(at + 16);
          in_module = rest.rfind(module, 0) == 0 &&
                      (rest.size() == module.size() || !std::isalnum(static_cast<unsigned char>(rest[module.size()])));
        }
        if (in_module && (line.find("tenferro::" + dep) != std::string::npos ||
                          line.find("tenferro_" + dep) != std::string::npos))
          return {rel.string(), lineno};
      }
    }
    return {(fs::path("src") / module / "CMakeLists.txt").string(), 1};
  }

  void scan_file(const fs::path& file) {
    fs::path rel = fs::relative(file, root_);
    std::optional<std::string> module = module_of(rel);
    if (!module) return;
    const Layer* layer = find_layer(*module, rel.string(), rel.string());
    if (layer == nullptr) return;
    const bool is_public = rel.begin()->string() == "include";
    std::ifstream in(file);
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      std::optional<std::string> header = included(line);
      if (!header) continue;
      std::string where = rel.string() + ":" + std::to_string(lineno);
      std::optional<std::string> target = module_of_header(*header, file.parent_path());
      if (!target) {
        if (is_public && is_provider_header(*header))
          add({where, rel.string() + " -> " + *header,
               "public header includes <" + *header +
                   ">: BLAS, LAPACK, FFT and CUDA headers stay in src/ (thin public headers)"});
        continue;
      }
      if (*target == *module || layer->uses.count(*target)) continue;
      add({where, rel.string() + " -> " + *header,
           *module + " includes " + *header + " (module " + *target + "); the layer table lets " + *module +
               " use " + join_uses(*layer)});
    }
  }

  // The header of an #include directive (the line's first token), if any.
  static std::optional<std::string> included(const std::string& line) {
    std::string t = trim(line);
    if (t.empty() || t[0] != '#') return std::nullopt;
    t = trim(t.substr(1));
    if (t.rfind("include", 0) != 0) return std::nullopt;
    t = trim(t.substr(7));
    if (t.empty() || (t[0] != '"' && t[0] != '<')) return std::nullopt;  // macro includes
    char close = t[0] == '"' ? '"' : '>';
    auto end = t.find(close, 1);
    if (end == std::string::npos) return std::nullopt;
    return t.substr(1, end - 1);
  }

  // The module of an included header: "tenferro/<m>/..." or "tenferro/<m>.hpp",
  // or a path relative to the including file that lies in src/ or include/.
  std::optional<std::string> module_of_header(const std::string& header, const fs::path& dir) {
    if (header.rfind("tenferro/", 0) == 0) return module_of(fs::path("include") / header);
    fs::path local = dir / header;
    if (fs::exists(local)) return module_of(fs::relative(fs::weakly_canonical(local), fs::weakly_canonical(root_)));
    return std::nullopt;
  }

  void add(Violation v) { violations_.push_back(std::move(v)); }

  fs::path root_;
  std::map<std::string, Layer> layers_;
  std::vector<Violation> violations_;
  std::map<std::string, std::map<std::string, std::string>> declared_;  // class -> module -> file:line
};

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args{{"--table", "docs/architecture.md"}, {"--nm", "nm"}};
  std::vector<std::pair<std::string, std::string>> libs;  // module, library
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help") {
      std::cout << "usage: tenferro_layering_check --root DIR [--table FILE] [--links FILE] [--allow FILE]\n"
                   "                               [--nm NM --lib MODULE=LIBRARY ...]\n";
      return 0;
    }
    if (i + 1 >= argc ||
        (a != "--root" && a != "--table" && a != "--links" && a != "--allow" && a != "--nm" && a != "--lib"))
      fail_usage("bad argument '" + a + "' (see --help)");
    std::string v = argv[++i];
    if (a == "--lib") {
      auto eq = v.find('=');
      if (eq == std::string::npos) fail_usage("--lib wants MODULE=LIBRARY, got '" + v + "'");
      libs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else {
      args[a] = v;
    }
  }
  if (!args.count("--root")) fail_usage("--root is required");
  fs::path root = args["--root"];
  auto resolve = [&](const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : root / p; };

  std::map<std::string, Layer> layers = read_table(resolve(args["--table"]));
  Checker checker(root, layers);
  checker.scan_sources();
  if (args.count("--links")) checker.check_links(resolve(args["--links"]));
  if (!libs.empty()) {
    checker.scan_declarations();
    for (const auto& [module, lib] : libs) checker.check_definitions(module, resolve(lib), args["--nm"]);
  }
  std::vector<std::string> stale;
  std::set<std::string> libs_read;
  for (const auto& lib : libs) libs_read.insert(lib.first);
  if (args.count("--allow")) stale = checker.apply_allowlist(resolve(args["--allow"]), libs_read);

  for (const Violation& v : checker.violations())
    std::cout << v.where << ": " << v.message << "\n    (allowlist key: " << v.key << ")\n";
  for (const std::string& s : stale) std::cout << s << "\n";
  std::size_t bad = checker.violations().size() + stale.size();
  std::cout << "layering check: " << layers.size() << " layers, " << checker.violations().size()
            << " violation(s), " << stale.size() << " stale allowlist entr" << (stale.size() == 1 ? "y" : "ies")
            << "\n";
  return bad == 0 ? 0 : 1;
}
