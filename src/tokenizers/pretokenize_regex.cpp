// The pre-tokenizer regex engine (see pretokenize_regex.h). The pattern parser recurses on the
// pattern's group nesting, which is limited to kMaxNesting; matching is iterative.
#include "tokenizers/pretokenize_regex.h"

#include "tokenizers/unicode.h"
#include "tokenizers/unicode_props.h"

#include <algorithm>

namespace hirope {
namespace regex {

namespace {

constexpr int kMaxNesting = 32;
constexpr size_t kMaxInstructions = 20000;
constexpr uint32_t kInfinite = ~0u;
constexpr uint32_t kWhiteSpaceBit = 1u << 31;

uint32_t cat_bits(std::initializer_list<unicode::GeneralCategory> cats) {
    uint32_t m = 0;
    for (auto c : cats) m |= 1u << c;
    return m;
}

// The category mask of a property name (0 when unknown).
uint32_t property_bits(std::string_view name) {
    using namespace unicode;
    struct Entry {
        const char* short_name;
        const char* long_name;
        uint32_t bits;
    };
    const uint32_t L = cat_bits({Lu, Ll, Lt, Lm, Lo}), M = cat_bits({Mn, Mc, Me}),
                   N = cat_bits({Nd, Nl, No}), P = cat_bits({Pc, Pd, Ps, Pe, Pi, Pf, Po}),
                   S = cat_bits({Sm, Sc, Sk, So}), Z = cat_bits({Zs, Zl, Zp}),
                   C = cat_bits({Cc, Cf, Cs, Co, Cn});
    const Entry table[] = {
        {"L", "Letter", L},
        {"LC", "Cased_Letter", cat_bits({Lu, Ll, Lt})},
        {"Lu", "Uppercase_Letter", cat_bits({Lu})},
        {"Ll", "Lowercase_Letter", cat_bits({Ll})},
        {"Lt", "Titlecase_Letter", cat_bits({Lt})},
        {"Lm", "Modifier_Letter", cat_bits({Lm})},
        {"Lo", "Other_Letter", cat_bits({Lo})},
        {"M", "Mark", M},
        {"Mn", "Nonspacing_Mark", cat_bits({Mn})},
        {"Mc", "Spacing_Mark", cat_bits({Mc})},
        {"Me", "Enclosing_Mark", cat_bits({Me})},
        {"N", "Number", N},
        {"Nd", "Decimal_Number", cat_bits({Nd})},
        {"Nl", "Letter_Number", cat_bits({Nl})},
        {"No", "Other_Number", cat_bits({No})},
        {"P", "Punctuation", P},
        {"Pc", "Connector_Punctuation", cat_bits({Pc})},
        {"Pd", "Dash_Punctuation", cat_bits({Pd})},
        {"Ps", "Open_Punctuation", cat_bits({Ps})},
        {"Pe", "Close_Punctuation", cat_bits({Pe})},
        {"Pi", "Initial_Punctuation", cat_bits({Pi})},
        {"Pf", "Final_Punctuation", cat_bits({Pf})},
        {"Po", "Other_Punctuation", cat_bits({Po})},
        {"S", "Symbol", S},
        {"Sm", "Math_Symbol", cat_bits({Sm})},
        {"Sc", "Currency_Symbol", cat_bits({Sc})},
        {"Sk", "Modifier_Symbol", cat_bits({Sk})},
        {"So", "Other_Symbol", cat_bits({So})},
        {"Z", "Separator", Z},
        {"Zs", "Space_Separator", cat_bits({Zs})},
        {"Zl", "Line_Separator", cat_bits({Zl})},
        {"Zp", "Paragraph_Separator", cat_bits({Zp})},
        {"C", "Other", C},
        {"Cc", "Control", cat_bits({Cc})},
        {"Cf", "Format", cat_bits({Cf})},
        {"Cs", "Surrogate", cat_bits({Cs})},
        {"Co", "Private_Use", cat_bits({Co})},
        {"Cn", "Unassigned", cat_bits({Cn})},
        {"White_Space", "space", kWhiteSpaceBit},
    };
    for (const Entry& e : table)
        if (name == e.short_name || name == e.long_name) return e.bits;
    return 0;
}

constexpr uint32_t kAllCategories = (1u << unicode::kCategoryCount) - 1;

struct Node {
    enum Kind { kClass, kConcat, kAlt, kRepeat, kAssert, kLook } kind = kClass;
    uint32_t cls = 0;
    std::vector<uint32_t> kids;
    uint32_t min = 0, max = 0;
    bool greedy = true;
    Inst::Op op = Inst::kMatch; // kAssert
    bool negative = false;      // kLook
};

Node make_node(Node::Kind k) {
    Node n;
    n.kind = k;
    return n;
}

} // namespace

bool CharClass::matches(uint32_t cp) const {
    bool in;
    if (cp < 128) {
        in = (ascii[cp >> 6] >> (cp & 63)) & 1;
    } else {
        in = false;
        if (categories & kAllCategories) in = (categories >> unicode::general_category(cp)) & 1;
        if (!in && (categories & kWhiteSpaceBit)) in = unicode::is_white_space(cp);
        if (!in && !ranges.empty()) {
            auto it = std::upper_bound(
                ranges.begin(), ranges.end(), cp,
                [](uint32_t v, const std::pair<uint32_t, uint32_t>& r) { return v < r.first; });
            in = it != ranges.begin() && cp <= (it - 1)->second;
        }
    }
    return in != negated;
}

class Compiler {
  public:
    Compiler(std::string_view p, Regex* re) : p_(p), re_(re) {}

    Status compile() {
        uint32_t root = 0;
        Status s = parse_alt(0, &root);
        if (!s.ok()) return s;
        if (pos_ < p_.size()) return error("unmatched ')'");
        if (nullable(root)) return error_at("a pattern that can match the empty string", 0);
        re_->prog_.clear();
        s = emit(root);
        if (!s.ok()) return s;
        re_->prog_.push_back({Inst::kMatch});
        re_->main_size_ = static_cast<uint32_t>(re_->prog_.size());
        for (size_t k = 0; k < looks_.size(); ++k) {
            re_->prog_[looks_[k].first].x = static_cast<uint32_t>(re_->prog_.size());
            s = emit(looks_[k].second);
            if (!s.ok()) return s;
            re_->prog_.push_back({Inst::kMatch});
        }
        for (CharClass& c : re_->classes_) finish(&c);
        return {};
    }

  private:
    Status error(const std::string& what) const { return error_at(what, pos_); }
    Status error_at(const std::string& what, size_t at) const {
        return Status::error("regex " + std::string(p_) + ": " + what + " (at offset " +
                             std::to_string(at) + ") is not supported");
    }
    Status syntax(const std::string& what) const {
        return Status::error("regex " + std::string(p_) + ": " + what + " at offset " +
                             std::to_string(pos_));
    }

    uint32_t add(Node n) {
        nodes_.push_back(std::move(n));
        return static_cast<uint32_t>(nodes_.size() - 1);
    }
    uint32_t add_class(CharClass c) {
        re_->classes_.push_back(std::move(c));
        Node n = make_node(Node::kClass);
        n.cls = static_cast<uint32_t>(re_->classes_.size() - 1);
        return add(std::move(n));
    }
    bool at_end() const { return pos_ >= p_.size(); }
    char peek() const { return p_[pos_]; }
    uint32_t next_cp() {
        size_t len;
        const uint32_t cp = unicode::decode(p_, pos_, &len);
        pos_ += len;
        return cp;
    }

    static void add_range(CharClass* c, uint32_t a, uint32_t b, bool fold) {
        for (uint32_t cp = a; cp <= std::min<uint32_t>(b, 127); ++cp) {
            c->ascii[cp >> 6] |= uint64_t{1} << (cp & 63);
            if (fold && ((cp | 32) >= 'a' && (cp | 32) <= 'z')) {
                const uint32_t o = cp ^ 32;
                c->ascii[o >> 6] |= uint64_t{1} << (o & 63);
            }
        }
        if (b >= 128) c->ranges.push_back({std::max<uint32_t>(a, 128), b});
    }
    static void finish(CharClass* c) {
        std::sort(c->ranges.begin(), c->ranges.end());
        std::vector<std::pair<uint32_t, uint32_t>> merged;
        for (const auto& r : c->ranges) {
            if (!merged.empty() && r.first <= merged.back().second + 1)
                merged.back().second = std::max(merged.back().second, r.second);
            else
                merged.push_back(r);
        }
        c->ranges = std::move(merged);
        for (uint32_t cp = 0; cp < 128; ++cp) {
            bool in = (c->categories >> unicode::general_category(cp)) & 1 &&
                      (c->categories & kAllCategories);
            if (!in && (c->categories & kWhiteSpaceBit)) in = unicode::is_white_space(cp);
            if (in) c->ascii[cp >> 6] |= uint64_t{1} << (cp & 63);
        }
    }

    uint32_t hex_digits(size_t max_digits, uint32_t* value) {
        uint32_t n = 0;
        *value = 0;
        while (n < max_digits && !at_end() && std::isxdigit(static_cast<unsigned char>(peek()))) {
            const char h = peek();
            *value = *value * 16 + static_cast<uint32_t>(h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
            ++pos_;
            ++n;
        }
        return n;
    }

    // An escape after the backslash at pos_ - 1. Either a single code point (*single = true,
    // *cp) or a set added to *set (inside a class: in_class).
    Status escape(bool in_class, bool* single, uint32_t* cp, CharClass* set, bool* negate_set) {
        *single = false;
        *negate_set = false;
        if (at_end()) return syntax("trailing backslash");
        const size_t at = pos_ - 1;
        const uint32_t c = next_cp();
        auto one = [&](uint32_t v) {
            *single = true;
            *cp = v;
            return Status();
        };
        switch (c) {
        case 'r':
            return one('\r');
        case 'n':
            return one('\n');
        case 't':
            return one('\t');
        case 'f':
            return one('\f');
        case 'v':
            return one('\v');
        case 'a':
            return one(7);
        case 'e':
            return one(27);
        case '0':
            return one(0);
        case 'x': {
            uint32_t v;
            if (!at_end() && peek() == '{') {
                ++pos_;
                if (hex_digits(8, &v) == 0 || at_end() || peek() != '}' || v > 0x10FFFF)
                    return syntax("bad \\x{...} escape");
                ++pos_;
                return one(v);
            }
            if (hex_digits(2, &v) != 2) return syntax("bad \\x escape");
            return one(v);
        }
        case 'u': {
            uint32_t v;
            if (hex_digits(4, &v) != 4) return syntax("bad \\u escape");
            if (v >= 0xD800 && v <= 0xDFFF) return error_at("a surrogate \\u escape", at);
            return one(v);
        }
        case 's':
        case 'S':
        case 'd':
        case 'D':
        case 'p':
        case 'P': {
            uint32_t bits;
            bool neg = c == 'S' || c == 'D' || c == 'P';
            if (c == 's' || c == 'S') {
                bits = kWhiteSpaceBit;
            } else if (c == 'd' || c == 'D') {
                bits = 1u << unicode::Nd;
            } else {
                if (at_end() || peek() != '{') return error_at("\\p without braces", at);
                const size_t close = p_.find('}', pos_);
                if (close == std::string_view::npos) return syntax("unterminated \\p{");
                std::string_view name = p_.substr(pos_ + 1, close - pos_ - 1);
                if (!name.empty() && name[0] == '^') {
                    neg = !neg;
                    name.remove_prefix(1);
                }
                bits = property_bits(name);
                if (!bits) return error_at("the property \\p{" + std::string(name) + "}", at);
                pos_ = close + 1;
            }
            if (neg && in_class) {
                if (bits & kWhiteSpaceBit)
                    return error_at("a negated White_Space escape inside a class", at);
                bits = kAllCategories & ~bits;
                neg = false;
            }
            set->categories |= bits;
            *negate_set = neg;
            return {};
        }
        default:
            break;
        }
        if (c < 128 && std::isalnum(static_cast<int>(c)))
            return error_at(std::string("the escape \\") + static_cast<char>(c), at);
        return one(c);
    }

    Status parse_class(bool fold, uint32_t* out) {
        const size_t open = pos_ - 1;
        CharClass c;
        if (!at_end() && peek() == '^') {
            c.negated = true;
            ++pos_;
        }
        bool first = true;
        for (;;) {
            if (at_end()) return syntax("unterminated class starting at " + std::to_string(open));
            if (peek() == ']') {
                if (first) return error("an empty class []");
                ++pos_;
                break;
            }
            first = false;
            if (peek() == '[') return error("a nested class");
            if (p_.substr(pos_, 2) == "&&") return error("class intersection &&");
            uint32_t lo;
            if (peek() == '\\') {
                ++pos_;
                bool single, negate;
                Status s = escape(true, &single, &lo, &c, &negate);
                if (!s.ok()) return s;
                if (!single) continue;
            } else {
                lo = next_cp();
            }
            uint32_t hi = lo;
            if (!at_end() && peek() == '-' && pos_ + 1 < p_.size() && p_[pos_ + 1] != ']') {
                ++pos_;
                if (peek() == '[') return error("a nested class");
                if (peek() == '\\') {
                    ++pos_;
                    bool single, negate;
                    CharClass dummy;
                    Status s = escape(true, &single, &hi, &dummy, &negate);
                    if (!s.ok()) return s;
                    if (!single) return error("a class escape as a range end");
                } else {
                    hi = next_cp();
                }
                if (hi < lo) return syntax("a range out of order");
            }
            add_range(&c, lo, hi, fold);
        }
        *out = add_class(std::move(c));
        return {};
    }

    Status parse_alt(int depth, uint32_t* out) {
        if (depth > kMaxNesting) return error("nesting deeper than 32 groups");
        std::vector<uint32_t> alts;
        for (;;) {
            uint32_t c;
            Status s = parse_concat(depth, &c);
            if (!s.ok()) return s;
            alts.push_back(c);
            if (!at_end() && peek() == '|') {
                ++pos_;
                continue;
            }
            break;
        }
        if (alts.size() == 1) {
            *out = alts[0];
        } else {
            Node n = make_node(Node::kAlt);
            n.kids = std::move(alts);
            *out = add(std::move(n));
        }
        return {};
    }

    Status parse_concat(int depth, uint32_t* out) {
        Node seq = make_node(Node::kConcat);
        while (!at_end() && peek() != '|' && peek() != ')') {
            const size_t atom_at = pos_;
            uint32_t atom;
            bool quantifiable = true;
            const char c = peek();
            if (c == '(') {
                ++pos_;
                bool fold = fold_, look = false, negative = false;
                if (p_.substr(pos_, 2) == "?:") {
                    pos_ += 2;
                } else if (p_.substr(pos_, 3) == "?i:") {
                    pos_ += 3;
                    fold = true;
                } else if (p_.substr(pos_, 2) == "?=" || p_.substr(pos_, 2) == "?!") {
                    negative = p_[pos_ + 1] == '!';
                    pos_ += 2;
                    look = true;
                    if (in_look_) return error_at("a nested lookahead", atom_at);
                } else if (!at_end() && peek() == '?') {
                    return error_at("the group syntax " + std::string(p_.substr(atom_at, 3)),
                                    atom_at);
                }
                const bool saved_fold = fold_, saved_look = in_look_;
                fold_ = fold;
                in_look_ = in_look_ || look;
                uint32_t inner;
                Status s = parse_alt(depth + 1, &inner);
                fold_ = saved_fold;
                in_look_ = saved_look;
                if (!s.ok()) return s;
                if (at_end() || peek() != ')') return syntax("unterminated group");
                ++pos_;
                if (look) {
                    Node n = make_node(Node::kLook);
                    n.kids = {inner};
                    n.negative = negative;
                    atom = add(std::move(n));
                    quantifiable = false;
                } else {
                    atom = inner;
                }
            } else if (c == '[') {
                ++pos_;
                Status s = parse_class(fold_, &atom);
                if (!s.ok()) return s;
            } else if (c == '\\') {
                ++pos_;
                if (!at_end() && (peek() == 'A' || peek() == 'z')) {
                    Node n = make_node(Node::kAssert);
                    n.op = peek() == 'A' ? Inst::kTextStart : Inst::kTextEnd;
                    ++pos_;
                    atom = add(std::move(n));
                    quantifiable = false;
                } else {
                    CharClass set;
                    bool single, negate;
                    uint32_t cp;
                    Status s = escape(false, &single, &cp, &set, &negate);
                    if (!s.ok()) return s;
                    if (single) add_range(&set, cp, cp, fold_);
                    set.negated = negate;
                    atom = add_class(std::move(set));
                }
            } else if (c == '.') {
                ++pos_;
                CharClass set;
                add_range(&set, '\n', '\n', false);
                set.negated = true;
                atom = add_class(std::move(set));
            } else if (c == '^' || c == '$') {
                ++pos_;
                Node n = make_node(Node::kAssert);
                n.op = c == '^' ? Inst::kLineStart : Inst::kLineEnd;
                atom = add(std::move(n));
                quantifiable = false;
            } else if (c == '*' || c == '+' || c == '?') {
                return syntax("nothing to repeat");
            } else {
                uint32_t mn, mx;
                size_t qlen;
                if (c == '{' && brace_quantifier(&mn, &mx, &qlen))
                    return syntax("nothing to repeat");
                const uint32_t cp = next_cp();
                CharClass set;
                add_range(&set, cp, cp, fold_);
                atom = add_class(std::move(set));
            }
            // Quantifier.
            if (!at_end()) {
                uint32_t mn = 0, mx = 0;
                size_t qlen = 0;
                const char q = peek();
                bool is_q = true;
                if (q == '*')
                    mn = 0, mx = kInfinite, qlen = 1;
                else if (q == '+')
                    mn = 1, mx = kInfinite, qlen = 1;
                else if (q == '?')
                    mn = 0, mx = 1, qlen = 1;
                else if (q == '{')
                    is_q = brace_quantifier(&mn, &mx, &qlen);
                else
                    is_q = false;
                if (is_q) {
                    if (!quantifiable) return error("a quantified assertion");
                    pos_ += qlen;
                    bool greedy = true;
                    if (!at_end() && peek() == '?') {
                        greedy = false;
                        ++pos_;
                    } else if (!at_end() && peek() == '+') {
                        return error("a possessive or nested quantifier");
                    }
                    if (!at_end() && (peek() == '*' || peek() == '+' || peek() == '?' ||
                                      (peek() == '{' && brace_quantifier(&mn, &mx, &qlen))))
                        return error("a nested quantifier");
                    if (mx != kInfinite && mn > mx) return syntax("a quantifier {n,m} with n > m");
                    if (mn > 1000 || (mx != kInfinite && mx > 1000))
                        return error("a repeat count above 1000");
                    if (mx == kInfinite && nullable(atom))
                        return error("a loop whose body can match the empty string");
                    Node n = make_node(Node::kRepeat);
                    n.kids = {atom};
                    n.min = mn;
                    n.max = mx;
                    n.greedy = greedy;
                    atom = add(std::move(n));
                }
            }
            seq.kids.push_back(atom);
        }
        *out = add(std::move(seq));
        return {};
    }

    // {n}, {n,}, {n,m}, {,m} at pos_ (not consumed).
    bool brace_quantifier(uint32_t* mn, uint32_t* mx, size_t* len) const {
        size_t i = pos_ + 1;
        auto number = [&](uint32_t* v) {
            const size_t s = i;
            uint64_t x = 0;
            while (i < p_.size() && std::isdigit(static_cast<unsigned char>(p_[i])) && i - s < 9)
                x = x * 10 + static_cast<uint64_t>(p_[i++] - '0');
            *v = static_cast<uint32_t>(x);
            return i > s;
        };
        uint32_t a = 0, b = 0;
        const bool has_a = number(&a);
        if (i < p_.size() && p_[i] == '}') {
            if (!has_a) return false;
            *mn = *mx = a;
        } else if (i < p_.size() && p_[i] == ',') {
            ++i;
            const bool has_b = number(&b);
            if (i >= p_.size() || p_[i] != '}' || (!has_a && !has_b)) return false;
            *mn = has_a ? a : 0;
            *mx = has_b ? b : kInfinite;
        } else {
            return false;
        }
        *len = i + 1 - pos_;
        return true;
    }

    bool nullable(uint32_t n) const {
        const Node& x = nodes_[n];
        switch (x.kind) {
        case Node::kClass:
            return false;
        case Node::kConcat:
            for (uint32_t k : x.kids)
                if (!nullable(k)) return false;
            return true;
        case Node::kAlt:
            for (uint32_t k : x.kids)
                if (nullable(k)) return true;
            return false;
        case Node::kRepeat:
            return x.min == 0 || nullable(x.kids[0]);
        default:
            return true;
        }
    }

    Status emit(uint32_t n) {
        std::vector<Inst>& prog = re_->prog_;
        if (prog.size() > kMaxInstructions) return error_at("a pattern this large", 0);
        const Node& x = nodes_[n];
        switch (x.kind) {
        case Node::kClass:
            prog.push_back({Inst::kClass, false, x.cls, 0});
            return {};
        case Node::kAssert:
            prog.push_back({x.op});
            return {};
        case Node::kLook:
            looks_.push_back({static_cast<uint32_t>(prog.size()), x.kids[0]});
            prog.push_back({Inst::kLook, x.negative, 0, 0});
            return {};
        case Node::kConcat:
            for (uint32_t k : x.kids) {
                Status s = emit(k);
                if (!s.ok()) return s;
            }
            return {};
        case Node::kAlt: {
            std::vector<uint32_t> jumps;
            for (size_t k = 0; k < x.kids.size(); ++k) {
                size_t split = 0;
                if (k + 1 < x.kids.size()) {
                    split = prog.size();
                    prog.push_back({Inst::kSplit, false, static_cast<uint32_t>(split + 1), 0});
                }
                Status s = emit(x.kids[k]);
                if (!s.ok()) return s;
                if (k + 1 < x.kids.size()) {
                    jumps.push_back(static_cast<uint32_t>(prog.size()));
                    prog.push_back({Inst::kJump});
                    prog[split].y = static_cast<uint32_t>(prog.size());
                }
            }
            for (uint32_t j : jumps) prog[j].x = static_cast<uint32_t>(prog.size());
            return {};
        }
        case Node::kRepeat: {
            const uint32_t child = x.kids[0];
            const bool greedy = x.greedy;
            const uint32_t mn = x.min, mx = x.max;
            for (uint32_t k = 0; k < mn; ++k) {
                Status s = emit(child);
                if (!s.ok()) return s;
            }
            auto split_to = [&](size_t at, uint32_t body, uint32_t exit) {
                prog[at].x = greedy ? body : exit;
                prog[at].y = greedy ? exit : body;
            };
            if (mx == kInfinite) {
                const size_t loop = prog.size();
                prog.push_back({Inst::kSplit});
                Status s = emit(child);
                if (!s.ok()) return s;
                prog.push_back({Inst::kJump, false, static_cast<uint32_t>(loop), 0});
                split_to(loop, static_cast<uint32_t>(loop + 1), static_cast<uint32_t>(prog.size()));
                return {};
            }
            std::vector<size_t> splits;
            for (uint32_t k = mn; k < mx; ++k) {
                splits.push_back(prog.size());
                prog.push_back({Inst::kSplit});
                Status s = emit(child);
                if (!s.ok()) return s;
            }
            for (size_t at : splits)
                split_to(at, static_cast<uint32_t>(at + 1), static_cast<uint32_t>(prog.size()));
            return {};
        }
        }
        return {};
    }

    std::string_view p_;
    Regex* re_;
    size_t pos_ = 0;
    bool fold_ = false, in_look_ = false;
    std::vector<Node> nodes_;
    std::vector<std::pair<uint32_t, uint32_t>> looks_; // (kLook instruction, body node)
};

Status Regex::compile(std::string_view pattern, Regex* out) {
    *out = Regex();
    Compiler c(pattern, out);
    return c.compile();
}

bool Regex::run(uint32_t pc0, std::string_view text, size_t start, size_t base, size_t* end,
                std::vector<uint64_t>* seen, std::vector<std::pair<uint32_t, uint32_t>>* stack,
                Scratch* scratch, size_t* touched) const {
    const size_t n = text.size();
    const size_t P = prog_.size();
    stack->clear();
    stack->push_back({pc0, static_cast<uint32_t>(start)});
    while (!stack->empty()) {
        uint32_t pc = stack->back().first;
        size_t pos = stack->back().second;
        stack->pop_back();
        for (;;) {
            const size_t bit = (pos - base) * P + pc;
            const size_t word = bit >> 6;
            if (word >= seen->size()) seen->resize(std::max(word + 1, seen->size() * 2), 0);
            const uint64_t mask = uint64_t{1} << (bit & 63);
            if ((*seen)[word] & mask) break;
            (*seen)[word] |= mask;
            if (word + 1 > *touched) *touched = word + 1;
            const Inst& in = prog_[pc];
            bool ok = true;
            switch (in.op) {
            case Inst::kClass: {
                if (pos >= n) {
                    ok = false;
                    break;
                }
                size_t len;
                const uint32_t cp = unicode::decode(text, pos, &len);
                if (!classes_[in.x].matches(cp)) {
                    ok = false;
                    break;
                }
                pos += len;
                ++pc;
                break;
            }
            case Inst::kSplit:
                stack->push_back({in.y, static_cast<uint32_t>(pos)});
                pc = in.x;
                break;
            case Inst::kJump:
                pc = in.x;
                break;
            case Inst::kMatch:
                *end = pos;
                return true;
            case Inst::kLineStart:
                ok = pos == 0 || text[pos - 1] == '\n';
                ++pc;
                break;
            case Inst::kLineEnd:
                ok = pos == n || text[pos] == '\n';
                ++pc;
                break;
            case Inst::kTextStart:
                ok = pos == 0;
                ++pc;
                break;
            case Inst::kTextEnd:
                ok = pos == n;
                ++pc;
                break;
            case Inst::kLook: {
                size_t e, t = 0;
                const bool r = run(in.x, text, pos, pos, &e, &scratch->look_seen,
                                   &scratch->look_stack, nullptr, &t);
                std::fill(scratch->look_seen.begin(), scratch->look_seen.begin() + t, 0);
                ok = r != in.flag;
                ++pc;
                break;
            }
            }
            if (!ok) break;
        }
    }
    return false;
}

bool Regex::find(std::string_view text, size_t from, size_t* start, size_t* end,
                 Scratch* scratch) const {
    size_t touched = 0;
    bool found = false;
    for (size_t s = from; s < text.size();) {
        if (run(0, text, s, from, end, &scratch->seen, &scratch->stack, scratch, &touched)) {
            *start = s;
            found = true;
            break;
        }
        size_t len;
        unicode::decode(text, s, &len);
        s += len;
    }
    std::fill(scratch->seen.begin(), scratch->seen.begin() + touched, 0);
    return found;
}

} // namespace regex
} // namespace hirope
