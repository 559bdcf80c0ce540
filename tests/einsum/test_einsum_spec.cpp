// Parsing: every notation feature, Unicode labels, the integer form, label
// extents, and every kind of malformed input.
#include "support/test_support.hpp"
#include "tenferro/einsum.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

DimVec dv(std::initializer_list<std::int64_t> v) { return DimVec(v); }

}  // namespace

TEST(EinsumSpec, MatmulLabelsInFirstAppearanceOrder) {
  EinsumSpec s = parse_einsum("ij,jk->ik", {2, 2});
  ASSERT_EQ(s.inputs.size(), 2u);
  EXPECT_EQ(s.inputs[0], dv({0, 1}));
  EXPECT_EQ(s.inputs[1], dv({1, 2}));
  EXPECT_EQ(s.output, dv({0, 2}));
  EXPECT_EQ(s.num_labels(), 3);
  EXPECT_EQ(s.label_text(0), "i");
  EXPECT_EQ(s.label_text(2), "k");
  EXPECT_EQ(s.to_string(), "ij,jk->ik");
}

TEST(EinsumSpec, ImplicitOutputIsSortedSingleLabels) {
  // NumPy: labels that occur once, in code-point order (upper case first).
  EinsumSpec s = parse_einsum("bA", {2});
  EXPECT_EQ(s.to_string(), "bA->Ab");
  EXPECT_EQ(parse_einsum("ij,jk", {2, 2}).to_string(), "ij,jk->ik");
  EXPECT_EQ(parse_einsum("ii", {2}).to_string(), "ii->");
  EXPECT_EQ(parse_einsum("kj,ji", {2, 2}).to_string(), "kj,ji->ik");
  EXPECT_EQ(parse_einsum("iβ,βα", {2, 2}).to_string(), "iβ,βα->iα");  // i (U+0069) < α (U+03B1)
}

TEST(EinsumSpec, SpacesAreIgnoredAndEmptyTermsAreScalars) {
  EXPECT_EQ(parse_einsum(" ij , jk -> ik ", {2, 2}).to_string(), "ij,jk->ik");
  EinsumSpec s = parse_einsum(",->", {0, 0});
  EXPECT_EQ(s.inputs.size(), 2u);
  EXPECT_TRUE(s.inputs[0].empty());
  EXPECT_TRUE(s.output.empty());
  EXPECT_EQ(parse_einsum("", {0}).inputs.size(), 1u);
}

TEST(EinsumSpec, UnicodeLabelsAreCodePoints) {
  // Greek, Cyrillic, a symbol and an unassigned Greek code point (U+03A2),
  // as in the benchmark instances; digits are labels too.
  EinsumSpec s = parse_einsum("αβ,βЖ×\u03A2,3->αЖ×\u03A23", {2, 4, 1});
  EXPECT_EQ(s.num_labels(), 6);
  EXPECT_EQ(s.label_text(0), "α");
  EXPECT_EQ(s.label_text(2), "Ж");
  EXPECT_EQ(s.label_text(4), "\u03A2");
  EXPECT_EQ(s.label_text(5), "3");
  EXPECT_EQ(s.names[2], 0x416);  // Ж
  EXPECT_EQ(s.output.size(), 5u);
}

TEST(EinsumSpec, EllipsisAlignsAtTheRightAndBroadcasts) {
  // Ranks 4 and 3: '...' covers 2 and 2 axes of the first, 1 of the second.
  EinsumSpec s = parse_einsum("...ij,j...->...i", {4, 2});
  // Two ellipsis axes e0, e1; the second operand's single one is e1.
  ASSERT_EQ(s.inputs[0].size(), 4u);
  ASSERT_EQ(s.inputs[1].size(), 2u);
  const auto e0 = s.inputs[0][0], e1 = s.inputs[0][1];
  EXPECT_EQ(s.names[static_cast<std::size_t>(e0)], -1);
  EXPECT_EQ(s.names[static_cast<std::size_t>(e1)], -2);
  EXPECT_EQ(s.inputs[1][1], e1);
  EXPECT_EQ(s.output, dv({e0, e1, s.inputs[0][2]}));
  EXPECT_EQ(s.label_text(e0), "\xE2\x80\xA6" "0");
  // Implicit output: the ellipsis first, then the single labels.
  EinsumSpec t = parse_einsum("b...,a", {3, 1});
  EXPECT_EQ(t.output.size(), 4u);
  EXPECT_EQ(t.label_text(t.output[0]), "\xE2\x80\xA6" "0");
  EXPECT_EQ(t.label_text(t.output[2]), "a");
  // An ellipsis that covers nothing.
  EXPECT_EQ(parse_einsum("...ij->ij", {2}).output.size(), 2u);
}

TEST(EinsumSpec, IntegerForm) {
  EinsumSpec s = einsum_spec({{7, 1000000000000}, {1000000000000, 3}}, {7, 3});
  EXPECT_EQ(s.inputs[0], dv({0, 1}));
  EXPECT_EQ(s.output, dv({0, 2}));
  EXPECT_EQ(s.label_text(1), "1000000000000");
  EXPECT_FALSE(s.from_text);
  EXPECT_EQ(s.to_string(), "[7,1000000000000],[1000000000000,3]->[7,3]");
  EinsumSpec imp = einsum_spec({{5, 2}, {2, 0}});
  EXPECT_EQ(imp.to_string(), "[5,2],[2,0]->[0,5]");
}

TEST(EinsumSpec, LabelSizesBroadcastOnes) {
  EinsumSpec s = parse_einsum("ij,jk->ik", {2, 2});
  EXPECT_EQ(einsum_label_sizes(s, {{2, 3}, {3, 4}}), (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(einsum_label_sizes(s, {{2, 1}, {3, 4}}), (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(einsum_label_sizes(s, {{1, 1}, {1, 1}}), (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_EQ(einsum_label_sizes(s, {{2, 0}, {1, 4}}), (std::vector<std::int64_t>{2, 0, 4}));
}

// ---- malformed input -------------------------------------------------------------

TEST(EinsumSpecErrors, ArrowProblems) {
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij,jk-ik", {2, 2}); },
                                      {"einsum", "'-' must be followed by '>'", "position 5", "\"ij,jk-ik\"", "^"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij,jk>ik", {2, 2}); },
                                      {"'>' without a preceding '-'", "position 5"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij->jk->k", {2}); }, {"second '->'", "position 6"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij-", {2}); }, {"'-' must be followed by '>'"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("i->i,i", {1}); }, {"',' after '->'", "position 4"}));
}

TEST(EinsumSpecErrors, CaretPointsAtTheOffendingCharacter) {
  try {
    parse_einsum("ab,c$->a", {2, 2});
    FAIL() << "no throw";
  } catch (const ValueError& e) {
    std::string m = e.what();
    // Line 2 quotes the text after '  "', line 3 has the caret under '$' (position 4).
    auto l2 = m.find("\n  \"ab,c$->a\"\n");
    ASSERT_NE(l2, std::string::npos) << m;
    std::string caret = m.substr(m.rfind('\n') + 1);
    EXPECT_EQ(caret, std::string(3 + 4, ' ') + "^") << m;
    EXPECT_NE(m.find("'$' (U+0024)"), std::string::npos) << m;
  }
}

TEST(EinsumSpecErrors, BadCharacters) {
  for (const char* s : {"i#j", "i!", "i_j", "i+j", "i\tj", "i\nj", "i(j)", "i;j"})
    EXPECT_TRUE(throws_with<ValueError>([&] { parse_einsum(s, {2}); }, {"einsum", "invalid label character"}))
        << s;
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("i\tj", {2}); }, {"U+0009", "\\x09"}));
}

TEST(EinsumSpecErrors, InvalidUtf8) {
  for (std::string s : {std::string("i\xFFj"), std::string("\xC3"), std::string("\xE2\x82"),
                        std::string("\xC0\xAF"),            // overlong '/'
                        std::string("\xED\xA0\x80"),        // surrogate U+D800
                        std::string("\xF4\x90\x80\x80")})  // above U+10FFFF
    EXPECT_TRUE(throws_with<ValueError>([&] { parse_einsum(s, {1}); }, {"einsum", "not valid UTF-8", "byte"}));
}

TEST(EinsumSpecErrors, EllipsisProblems) {
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("i.j", {2}); }, {"only valid as part of '...'", "position 1"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("..i", {1}); }, {"only valid as part of '...'"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("...i...", {3}); }, {"second '...'", "position 4"}));
  // Operands have broadcast axes but the output has no '...'.
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("...ij->ij", {3}); },
                                      {"'...' covers 1 broadcast axis", "has no '...'", "\"...ij->ij\""}));
  // Fewer axes than labels.
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("...ijk", {2}); },
                                      {"operand 0 has rank 2, fewer axes than the 3 labels", "'...ijk'"}));
}

TEST(EinsumSpecErrors, OperandCountAndRank) {
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij,jk->ik", {2}); },
                                      {"\"ij,jk->ik\" name 2 operands but 1 operand was given"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij->i", {2, 2}); }, {"name 1 operand but 2 operands were"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij,jk->ik", {2, 3}); },
                                      {"operand 1 has rank 3 but its subscripts 'jk' name 2 axes"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ijk", {2}); }, {"operand 0 has rank 2", "name 3 axes"}));
}

TEST(EinsumSpecErrors, OutputLabels) {
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij->ii", {2}); },
                                      {"output label 'i' (U+0069) appears twice", "position 5"}));
  EXPECT_TRUE(throws_with<ValueError>([] { parse_einsum("ij->iz", {2}); },
                                      {"output label 'z' (U+007A) does not appear in any operand", "position 5"}));
  EXPECT_TRUE(throws_with<ValueError>([] { einsum_spec({{0, 1}}, {1, 1}); }, {"output label 1 appears more than once"}));
  EXPECT_TRUE(throws_with<ValueError>([] { einsum_spec({{0, 1}}, {2}); }, {"output label 2", "does not appear"}));
  EXPECT_TRUE(throws_with<ValueError>([] { einsum_spec({{0, -3}}, {0}); },
                                      {"label -3 (operand 0, axis 1) is negative"}));
}

TEST(EinsumSpecErrors, InconsistentExtents) {
  EinsumSpec s = parse_einsum("ij,jk->ik", {2, 2});
  EXPECT_TRUE(throws_with<ShapeError>([&] { einsum_label_sizes(s, {{2, 3}, {4, 5}}); },
                                      {"label 'j' has extent 3 in operand 0 (axis 1", "but 4 in operand 1 (axis 0",
                                       "\"ij,jk->ik\""}));
  EinsumSpec d = parse_einsum("ii->i", {2});
  EXPECT_TRUE(throws_with<ShapeError>([&] { einsum_label_sizes(d, {{2, 3}}); },
                                      {"label 'i' is repeated in operand 0", "extents 2 (axis 0) and 3 (axis 1)"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { einsum_label_sizes(s, {{2, 3}, {3}}); },
                                      {"operand 1 has shape [3] (rank 1)"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { einsum_label_sizes(s, {{2, 3}}); }, {"name 2 operands but 1"}));
  // '...' axes must broadcast too.
  EinsumSpec e = parse_einsum("...i,...i->...", {2, 2});
  EXPECT_TRUE(throws_with<ShapeError>([&] { einsum_label_sizes(e, {{2, 3}, {4, 3}}); }, {"label '…0' has extent 2"}));
}
