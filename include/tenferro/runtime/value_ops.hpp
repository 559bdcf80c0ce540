#pragma once
/// \file
/// Moved: the graph-level op layer (`vops::`) lives in the ops module,
/// tenferro/ops/value_ops.hpp. This header forwards there.
#include "tenferro/ops/value_ops.hpp"
