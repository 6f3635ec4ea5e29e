// One parse per analysis, walked iteratively with a tree cursor: the lexical tokens, the
// statement starts, the error regions and the top-level units, then per-token positions.
#include "analysis/languages.h"
#include "hirope/analysis.h"
#include "tokenizers/unicode.h"
#include "util/hash.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

namespace hirope {

namespace {

enum Flag : uint8_t {
    kStatement = 1,
    kFunction = 2,
    kClass = 4,
    kWrapper = 8,
    kBinding = 16,
    kContainer = 32,
    kExpression = 64,
    kPair = 128,
};

bool ends_with(const char* s, const char* suffix) {
    const size_t a = std::strlen(s), b = std::strlen(suffix);
    return a >= b && std::strcmp(s + a - b, suffix) == 0;
}

bool listed(const std::vector<const char*>& list, const char* name) {
    for (const char* x : list)
        if (std::strcmp(x, name) == 0) return true;
    return false;
}

} // namespace

// A grammar with per-symbol flags, so that the walk compares numbers, not strings.
struct Grammar {
    const detail::LanguageRules* rules = nullptr;
    const TSLanguage* language = nullptr;
    std::vector<uint8_t> flags;
    TSFieldId body = 0, name = 0, declarator = 0, value = 0, type = 0, declaration = 0,
              definition = 0, trait = 0, left = 0, right = 0, function = 0, arguments = 0,
              argument = 0, key = 0, object = 0, property = 0;

    Grammar(const detail::LanguageRules& r, const TSLanguage* ts) : rules(&r), language(ts) {
        const uint32_t count = ts_language_symbol_count(language);
        flags.assign(count, 0);
        for (uint32_t s = 0; s < count; ++s) {
            const char* n = ts_language_symbol_name(language, static_cast<TSSymbol>(s));
            if (!n) continue;
            uint8_t f = 0;
            for (const char* suffix : r.statement_suffixes)
                if (ends_with(n, suffix)) f |= kStatement;
            if (listed(r.statements, n)) f |= kStatement;
            if (detail::excluded_statement(n)) f &= ~kStatement;
            if (listed(r.functions, n)) f |= kFunction;
            if (listed(r.classes, n)) f |= kClass;
            if (listed(r.wrappers, n)) f |= kWrapper;
            if (listed(r.bindings, n)) f |= kBinding;
            if (listed(r.containers, n)) f |= kContainer;
            if (listed(r.expressions, n)) f |= kExpression;
            if (listed(r.pairs, n)) f |= kPair;
            flags[s] = f;
        }
        auto field = [&](const char* n) {
            return ts_language_field_id_for_name(language, n,
                                                 static_cast<uint32_t>(std::strlen(n)));
        };
        body = field("body");
        name = field("name");
        declarator = field("declarator");
        value = field("value");
        type = field("type");
        declaration = field("declaration");
        definition = field("definition");
        trait = field("trait");
        left = field("left");
        right = field("right");
        function = field("function");
        arguments = field("arguments");
        argument = field("argument");
        key = field("key");
        object = field("object");
        property = field("property");
    }
    uint8_t of(TSNode n) const {
        const TSSymbol s = ts_node_symbol(n);
        return s < flags.size() ? flags[s] : 0;
    }
};

const Grammar* built_in_grammar(std::string_view language) {
    // Made once, immutable afterwards (thread-safe static initialisation).
    static const std::vector<Grammar> all = [] {
        std::vector<Grammar> g;
        for (const detail::LanguageRules& r : detail::language_rules())
            if (const TSLanguage* ts = detail::built_in_language(r.name)) g.emplace_back(r, ts);
        return g;
    }();
    for (const Grammar& g : all)
        if (language == g.rules->name) return &g;
    return nullptr;
}

Status make_grammar(std::string_view language, const TSLanguage* ts, GrammarPtr* out) {
    const detail::LanguageRules* rules = detail::find_language(language);
    if (!rules) return Status::error("language '" + std::string(language) + "' is not supported");
    if (!ts) return Status::error(std::string("the ") + rules->name + " grammar is null");
    const uint32_t abi = ts_language_abi_version(ts);
    if (abi < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION || abi > TREE_SITTER_LANGUAGE_VERSION)
        return Status::error(std::string("the ") + rules->name + " grammar has ABI version " +
                             std::to_string(abi) + "; this tree-sitter reads versions " +
                             std::to_string(TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION) + " to " +
                             std::to_string(TREE_SITTER_LANGUAGE_VERSION));
    out->reset(new Grammar(*rules, ts));
    return {};
}

void GrammarDeleter::operator()(Grammar* g) const {
    delete g;
}

const char* grammar_language(const Grammar& grammar) {
    return grammar.rules->name;
}

namespace {

// Byte offset -> UTF-16 offset. Queries in non-decreasing order (token starts, token ends) sweep
// forward in O(1) amortised; a query behind the sweep restarts from a checkpoint (every 256
// bytes, at character boundaries).
class Utf16Index {
  public:
    explicit Utf16Index(std::string_view s) : s_(s) {
        uint32_t units = 0;
        size_t pos = 0;
        for (size_t k = 0; k * kStep <= s.size(); ++k) {
            while (pos < k * kStep) step(&pos, &units);
            points_.push_back({static_cast<uint32_t>(pos), units});
        }
    }
    // UTF-16 offset of the character containing byte b (ceil: of the next character boundary).
    uint32_t at(uint32_t b, bool ceil) {
        if (b < pos_) {
            size_t k = b / kStep;
            if (points_[k].byte > b) --k; // the checkpoint moved past b inside a character
            pos_ = points_[k].byte;
            units_ = points_[k].units;
        }
        while (pos_ < b) {
            const size_t before = pos_;
            const uint32_t u = units_;
            step(&pos_, &units_);
            if (pos_ > b) { // b is inside this character
                const uint32_t result = ceil ? units_ : u;
                pos_ = before;
                units_ = u;
                return result;
            }
        }
        return units_;
    }

  private:
    void step(size_t* pos, uint32_t* units) const {
        const unsigned char c = static_cast<unsigned char>(s_[*pos]);
        if (c < 0x80) { // ASCII fast path
            ++*pos;
            ++*units;
            return;
        }
        size_t len;
        *units += unicode::utf16_units(unicode::decode(s_, *pos, &len));
        *pos += len;
    }
    static constexpr size_t kStep = 256;
    struct Point {
        uint32_t byte, units;
    };
    std::string_view s_;
    std::vector<Point> points_;
    size_t pos_ = 0;
    uint32_t units_ = 0;
};

std::string node_text(std::string_view code, TSNode n, size_t limit = 200) {
    const uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    return std::string(code.substr(s, std::min<size_t>(e - s, limit)));
}

// A name as written in a key or method name: a quoted one (`"foo": function`, `'bar'() {}`)
// without its quotes.
std::string key_text(std::string_view code, TSNode n) {
    std::string text = node_text(code, n);
    const char* t = ts_node_is_null(n) ? "" : ts_node_type(n);
    if (std::strcmp(t, "string") == 0 && text.size() >= 2) return text.substr(1, text.size() - 2);
    return text;
}

// The name of a definition: its `name` field, or for C-like declarators the innermost
// declarator, or for Rust impls the type (and trait).
std::string definition_name(const Grammar& g, std::string_view code, TSNode n) {
    TSNode name = ts_node_child_by_field_id(n, g.name);
    if (!ts_node_is_null(name)) return key_text(code, name);
    TSNode d = ts_node_child_by_field_id(n, g.declarator);
    for (int guard = 0; !ts_node_is_null(d) && guard < 64; ++guard) {
        TSNode inner = ts_node_child_by_field_id(d, g.declarator);
        if (ts_node_is_null(inner)) {
            TSNode nm = ts_node_child_by_field_id(d, g.name);
            return node_text(code, ts_node_is_null(nm) ? d : nm);
        }
        d = inner;
    }
    TSNode t = ts_node_child_by_field_id(n, g.type);
    if (!ts_node_is_null(t)) {
        TSNode tr = ts_node_child_by_field_id(n, g.trait);
        return ts_node_is_null(tr) ? node_text(code, t)
                                   : node_text(code, tr) + " for " + node_text(code, t);
    }
    // Go's type_declaration: the first type_spec's name.
    for (uint32_t i = 0; i < ts_node_named_child_count(n) && i < 4; ++i) {
        TSNode c = ts_node_named_child(n, i);
        TSNode nm = ts_node_child_by_field_id(c, g.name);
        if (!ts_node_is_null(nm)) return node_text(code, nm);
    }
    return "";
}

struct Definition {
    bool found = false;
    bool is_class = false;
    TSNode node{}; // the definition itself (inside any wrapper)
    std::string name;
    std::string language_kind; // the language's own word: "struct", "impl", "interface"
    // Not a definition, but nodes whose members are scanned as this level's own: the object
    // literal of `module.exports = {...}`, the bodies an IIFE or UMD wrapper runs.
    std::vector<TSNode> scopes;
};

bool type_is(TSNode n, const char* type) {
    return !ts_node_is_null(n) && std::strcmp(ts_node_type(n), type) == 0;
}

// A function or class as a value: `function () {}`, `function* () {}`, `() => {}`, `class {}`.
bool is_function_value(TSNode n) {
    if (ts_node_is_null(n) || !ts_node_is_named(n)) return false;
    const char* t = ts_node_type(n);
    return std::strcmp(t, "function_expression") == 0 || std::strcmp(t, "function") == 0 ||
           std::strcmp(t, "generator_function") == 0 || std::strcmp(t, "arrow_function") == 0;
}

// The first named child that is not a comment (bundles put `/******/` everywhere), or null.
TSNode first_named_child(TSNode n) {
    const uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count && i < 16; ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (!type_is(c, "comment")) return c;
    }
    return TSNode{};
}

// An expression less its parentheses and prefix operators (`!function () {}()`).
TSNode unwrap_expression(const Grammar& g, TSNode n) {
    for (int guard = 0; guard < 16 && !ts_node_is_null(n); ++guard) {
        if (type_is(n, "parenthesized_expression"))
            n = first_named_child(n);
        else if (type_is(n, "unary_expression"))
            n = ts_node_child_by_field_id(n, g.argument);
        else
            break;
    }
    return n;
}

// The bodies an immediately invoked function expression runs, in source order: the callee's
// (`(function () {...})()`, `!function () {...}()`, `(function () {...}).call(this)`, and through
// a call that returns the function: browserify's `(function () {...})()({...})`), and the bodies of
// the functions each call is given, directly (UMD: `(function (root, factory) {...})(this,
// function () {...})`), in an array (webpack's module list) or as an object's values, each a
// function or an array holding one (browserify's `{1: [function (require, module, exports) {...},
// {...}]}`). Empty when `n` is no such call.
std::vector<TSNode> wrapper_bodies(const Grammar& g, TSNode n) {
    std::vector<TSNode> out;
    // The calls from the outermost in, and the function the innermost one calls.
    std::vector<TSNode> calls;
    TSNode callee = unwrap_expression(g, n);
    for (int guard = 0; guard < 4 && type_is(callee, "call_expression"); ++guard) {
        calls.push_back(callee);
        callee = unwrap_expression(g, ts_node_child_by_field_id(callee, g.function));
        if (type_is(callee, "member_expression")) {
            TSNode p = ts_node_child_by_field_id(callee, g.property);
            const uint32_t s = ts_node_start_byte(p), e = ts_node_end_byte(p);
            if (ts_node_is_null(p) || (e - s != 4 && e - s != 5)) return out; // call, apply
            callee = unwrap_expression(g, ts_node_child_by_field_id(callee, g.object));
        }
    }
    if (calls.empty() || !is_function_value(callee)) return out;
    auto add_body = [&](TSNode f) {
        TSNode body = ts_node_child_by_field_id(f, g.body);
        if (type_is(body, "statement_block")) out.push_back(body);
    };
    // The function values among the children of a node (arguments, an array's elements).
    auto add_functions = [&](TSNode list, auto&& each) {
        TSTreeCursor c = ts_tree_cursor_new(list);
        for (bool more = ts_tree_cursor_goto_first_child(&c); more;
             more = ts_tree_cursor_goto_next_sibling(&c))
            each(unwrap_expression(g, ts_tree_cursor_current_node(&c)));
        ts_tree_cursor_delete(&c);
    };
    auto function_or_array = [&](TSNode v) {
        if (is_function_value(v))
            add_body(v);
        else if (type_is(v, "array"))
            add_functions(v, [&](TSNode e) {
                if (is_function_value(e)) add_body(e);
            });
    };
    add_body(callee);
    for (size_t i = calls.size(); i-- > 0;) {
        TSNode args = ts_node_child_by_field_id(calls[i], g.arguments);
        if (ts_node_is_null(args)) continue;
        add_functions(args, [&](TSNode a) {
            if (type_is(a, "object"))
                add_functions(a, [&](TSNode pair) {
                    if (type_is(pair, "pair"))
                        function_or_array(
                            unwrap_expression(g, ts_node_child_by_field_id(pair, g.value)));
                });
            else
                function_or_array(a);
        });
    }
    return out;
}

// What a value bound to a name makes: a definition (function or class), or scopes (an object
// literal's members, a wrapper's bodies).
void classify_value(const Grammar& g, TSNode value, Definition* d) {
    value = unwrap_expression(g, value);
    if (ts_node_is_null(value)) return;
    const bool cls = type_is(value, "class");
    if (cls || is_function_value(value)) {
        d->found = true;
        d->is_class = cls;
        d->language_kind = cls ? "class" : "function";
    } else if (type_is(value, "object")) {
        d->scopes.push_back(value);
    } else {
        d->scopes = wrapper_bodies(g, value);
    }
}

// The language's own word for a definition node: from its type, and for Go's type_declaration
// from the type its first spec declares (struct, interface, or another type).
std::string language_kind_of(const Grammar& g, TSNode n) {
    const char* type = ts_node_type(n);
    if (std::strcmp(type, "type_declaration") != 0) return detail::language_kind(type);
    const uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count && i < 4; ++i) { // comments may come before the spec
        TSNode spec = ts_node_named_child(n, i);
        const char* st = ts_node_type(spec);
        if (std::strcmp(st, "type_alias") == 0) return "type";
        if (std::strcmp(st, "type_spec") != 0) continue;
        TSNode t = ts_node_child_by_field_id(spec, g.type);
        const char* tt = ts_node_is_null(t) ? "" : ts_node_type(t);
        if (std::strcmp(tt, "struct_type") == 0) return "struct";
        if (std::strcmp(tt, "interface_type") == 0) return "interface";
        return "type";
    }
    return "type";
}

bool specifier_without_body(const Grammar& g, TSNode n) {
    return ends_with(ts_node_type(n), "_specifier") &&
           ts_node_is_null(ts_node_child_by_field_id(n, g.body));
}

// Is n a definition (directly, through a wrapper, or as a bound function)?
Definition classify(const Grammar& g, std::string_view code, TSNode n) {
    Definition d;
    TSNode cur = n;
    for (int depth = 0; depth < 4; ++depth) { // wrappers nest a few levels at most
        const uint8_t f = g.of(cur);
        if ((f & (kFunction | kClass)) && !specifier_without_body(g, cur)) {
            d.found = true;
            d.is_class = (f & kClass) != 0;
            d.node = cur;
            d.name = definition_name(g, code, cur);
            d.language_kind = language_kind_of(g, cur);
            return d;
        }
        if (f & kBinding) {
            // lexical_declaration > variable_declarator(name, value: arrow_function | class ...)
            // A cursor visits the children in linear time (ts_node_named_child(i) is O(i)).
            TSTreeCursor c = ts_tree_cursor_new(cur);
            for (bool more = ts_tree_cursor_goto_first_child(&c); more;
                 more = ts_tree_cursor_goto_next_sibling(&c)) {
                TSNode decl = ts_tree_cursor_current_node(&c);
                if (!ts_node_is_named(decl)) continue;
                TSNode value = ts_node_child_by_field_id(decl, g.value);
                if (ts_node_is_null(value)) continue;
                Definition v;
                classify_value(g, value, &v);
                if (v.found) {
                    d = std::move(v);
                    d.node = cur;
                    d.name = node_text(code, ts_node_child_by_field_id(decl, g.name));
                    break;
                }
                // `var api = {...}` or `var lib = (function () {...})()`: the first such value.
                if (d.scopes.empty()) d.scopes = std::move(v.scopes);
            }
            ts_tree_cursor_delete(&c);
            return d;
        }
        if (f & kPair) { // `key: function () {}` in an object literal
            classify_value(g, ts_node_child_by_field_id(cur, g.value), &d);
            if (d.found) {
                d.node = cur;
                d.name = key_text(code, ts_node_child_by_field_id(cur, g.key));
            }
            return d;
        }
        if (f & kExpression) {
            TSNode e = unwrap_expression(g, first_named_child(cur));
            if (ts_node_is_null(e)) return d; // `return;`
            if (type_is(e, "assignment_expression")) {
                // `a = b = function () {}`: named by the first target.
                TSNode target = ts_node_child_by_field_id(e, g.left);
                TSNode value = ts_node_child_by_field_id(e, g.right);
                for (int guard = 0; guard < 16 && type_is(value, "assignment_expression"); ++guard)
                    value = ts_node_child_by_field_id(value, g.right);
                classify_value(g, value, &d);
                if (d.found) {
                    d.node = e;
                    d.name = node_text(code, target);
                }
            } else {
                d.scopes = wrapper_bodies(g, e);
            }
            return d;
        }
        if (!(f & kWrapper)) return d;
        TSNode inner = ts_node_child_by_field_id(cur, g.definition);
        if (ts_node_is_null(inner)) inner = ts_node_child_by_field_id(cur, g.declaration);
        if (ts_node_is_null(inner)) {
            // template_declaration, ambient_declaration: the last named child
            const uint32_t c = ts_node_named_child_count(cur);
            if (c == 0) return d;
            inner = ts_node_named_child(cur, c - 1);
        }
        cur = inner;
    }
    return d;
}

struct Item {
    uint32_t start;
    int kind; // 0 code, 1 function, 2 class
    std::string name;
    std::string node_type;
    std::string language_kind;
    bool header = false; // a class whose members follow as their own items (descend_classes)
};

// Top-level units by an iterative walk (no recursion): one tree cursor per level entered (a
// container, a class body with descend_classes, a scope of a JavaScript statement), on a stack.
std::vector<Item> scan_units(const Grammar& g, std::string_view code, TSTree* tree,
                             bool descend_classes) {
    std::vector<Item> items;
    struct Level {
        TSTreeCursor cursor; // on the member to scan next
        bool in_class;       // scanning a class body (descend_classes)
    };
    std::vector<Level> stack;
    // Pushes a level over the children of n; false when it has none.
    auto open = [&](TSNode n, bool in_class) {
        TSTreeCursor c = ts_tree_cursor_new(n);
        if (!ts_tree_cursor_goto_first_child(&c)) {
            ts_tree_cursor_delete(&c);
            return false;
        }
        stack.push_back({c, in_class});
        return true;
    };
    // A definition's or container's members: its `body` field if any, else its children.
    auto members = [&](TSNode n) {
        TSNode body = ts_node_child_by_field_id(n, g.body);
        return ts_node_is_null(body) ? n : body;
    };
    open(ts_tree_root_node(tree), false);
    while (!stack.empty()) {
        TSNode n = ts_tree_cursor_current_node(&stack.back().cursor);
        const bool in_class = stack.back().in_class;
        // Step past n first: the levels n opens are scanned before its next sibling.
        if (!ts_tree_cursor_goto_next_sibling(&stack.back().cursor)) {
            ts_tree_cursor_delete(&stack.back().cursor);
            stack.pop_back();
        }
        const uint8_t f = g.of(n);
        Definition d = classify(g, code, n);
        if (d.found) {
            // A function in a class body (descend_classes) is a method, whatever its node type.
            std::string own = d.language_kind;
            if (in_class && !d.is_class && own == "function") own = "method";
            items.push_back({ts_node_start_byte(n), d.is_class ? 2 : 1, d.name,
                             ts_node_type(d.node), std::move(own)});
            if (d.is_class && descend_classes && !in_class)
                items.back().header = open(members(d.node), true);
        } else if (!d.scopes.empty() && !in_class) {
            items.push_back({ts_node_start_byte(n), 0, "", "", ""}); // the statement's own code
            for (size_t i = d.scopes.size(); i-- > 0;) open(d.scopes[i], false); // first on top
        } else if ((f & kContainer) && !in_class) {
            items.push_back({ts_node_start_byte(n), 0, "", "", ""}); // the container's header
            open(members(n), false);
        } else if (ts_node_is_named(n)) {
            items.push_back({ts_node_start_byte(n), 0, "", "", ""});
        }
    }
    return items;
}

std::vector<Unit> build_units(std::vector<Item> items, GapPolicy gap, uint32_t size) {
    // Consecutive code items form one gap run.
    std::vector<Item> runs;
    // Members before a class's first method belong to the class's own (header) unit.
    for (Item& it : items) {
        if (it.kind == 0 && !runs.empty() && (runs.back().kind == 0 || runs.back().header))
            continue;
        // A container's header item and its first member can start at the same byte: keep one.
        if (!runs.empty() && runs.back().start == it.start) {
            if (it.kind != 0) runs.back() = std::move(it);
            continue;
        }
        runs.push_back(std::move(it));
    }
    if (gap != GapPolicy::own) {
        std::vector<Item> merged;
        for (size_t i = 0; i < runs.size(); ++i) {
            if (runs[i].kind != 0) {
                merged.push_back(runs[i]);
                continue;
            }
            const bool has_next = i + 1 < runs.size();
            const bool has_prev = !merged.empty();
            if (gap == GapPolicy::next && has_next) {
                runs[i + 1].start = runs[i].start; // the code joins the next unit
            } else if (gap == GapPolicy::previous && has_prev) {
                // the previous unit extends over it (units partition the text)
            } else {
                merged.push_back(runs[i]);
            }
        }
        runs.swap(merged);
    }
    std::vector<Unit> units;
    for (size_t i = 0; i < runs.size(); ++i) {
        Unit u;
        u.kind = runs[i].kind == 1 ? "function" : runs[i].kind == 2 ? "class" : "code";
        u.name = runs[i].name;
        u.node_type = runs[i].node_type;
        u.language_kind = runs[i].language_kind;
        u.start = i == 0 ? 0 : runs[i].start;
        units.push_back(u);
    }
    if (units.empty()) {
        Unit u;
        u.kind = "code";
        units.push_back(u);
    }
    for (size_t i = 0; i < units.size(); ++i)
        units[i].end = i + 1 < units.size() ? units[i + 1].start : size;
    return units;
}

// Leaf ids are non-negative int32 values: FNV-1a of the text with the top bit cleared.
uint32_t fnv1a31(std::string_view s) {
    return util::fnv1a(s) & 0x7fffffffu;
}

bool is_blank(std::string_view s) {
    for (char c : s)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
    return true;
}

// Lexical tokens: non-empty leaves, plus any non-blank text between leaves (split at blanks).
void add_gap_tokens(std::string_view code, uint32_t from, uint32_t to, std::vector<Token>* out) {
    uint32_t i = from;
    while (i < to) {
        while (i < to && is_blank(code.substr(i, 1))) ++i;
        uint32_t j = i;
        while (j < to && !is_blank(code.substr(j, 1))) ++j;
        if (j > i) out->push_back({static_cast<int32_t>(fnv1a31(code.substr(i, j - i))), i, j});
        i = j;
    }
}

struct Walk {
    std::vector<uint32_t> statement_starts;
    std::vector<ErrorRegion> errors;
    std::vector<Token> leaves;
    int32_t statements = 0;
};

Walk walk_tree(const Grammar& g, std::string_view code, TSTree* tree, bool want_leaves) {
    Walk w;
    TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(tree));
    // Clean trees (the common case) skip the per-node error checks.
    const bool has_errors = ts_node_has_error(ts_tree_root_node(tree));
    uint32_t covered = 0, error_end = 0;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        const uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        if (g.of(n) & kStatement) {
            w.statement_starts.push_back(s);
            ++w.statements;
        }
        const bool missing = has_errors && ts_node_is_missing(n);
        if (has_errors && (ts_node_is_error(n) || missing) && (s >= error_end || missing)) {
            ErrorRegion r;
            r.start = s;
            r.end = e;
            r.missing = missing;
            w.errors.push_back(r);
            error_end = std::max(error_end, e);
        }
        if (ts_tree_cursor_goto_first_child(&cur)) continue;
        if (want_leaves && e > s && s >= covered) {
            add_gap_tokens(code, covered, s, &w.leaves);
            w.leaves.push_back({static_cast<int32_t>(fnv1a31(code.substr(s, e - s))), s, e});
            covered = e;
        }
        bool done = false;
        while (!ts_tree_cursor_goto_next_sibling(&cur)) {
            if (!ts_tree_cursor_goto_parent(&cur)) {
                done = true;
                break;
            }
        }
        if (done) break;
    }
    ts_tree_cursor_delete(&cur);
    if (want_leaves) add_gap_tokens(code, covered, static_cast<uint32_t>(code.size()), &w.leaves);
    return w; // pre-order visits statement starts in order
}

struct Parsed {
    TSParser* parser = nullptr;
    TSTree* tree = nullptr;
    ~Parsed() {
        if (tree) ts_tree_delete(tree);
        if (parser) ts_parser_delete(parser);
    }
};

// Values above this many milliseconds (11.6 days) mean no limit: a deadline that far ahead is
// never reached, and steady_clock's nanosecond count cannot overflow computing it.
constexpr double kMaxTimeoutMs = 1e9;

// The deadline of one parse (the budget lives in the call: no state is kept between calls). It
// reaches tree-sitter twice: as the payload of the progress callback, which tree-sitter calls
// every 100 parse operations and which stops the parse, and as the payload of the input, so that
// a single lexing operation cannot run far past it either: an external scanner looking for the
// end of a raw string rescans the rest of the input from every position (Rust `r#"` repeated),
// so one operation can read megabytes.
struct Deadline {
    std::string_view code;
    bool limited = false;
    const HeapBudget* heap = nullptr; // checked by the progress callback too
    bool out_of_memory = false;       // the heap passed its budget: the parse stopped
    std::chrono::steady_clock::time_point at;
    uint32_t byte = 0;    // the furthest position the progress callback saw
    bool expired = false; // the parse ran past the deadline: its tree, if any, is discarded
    uint32_t served_start = 0, served_end = 0; // the chunk last handed to the lexer
};

bool past_deadline(TSParseState* state) {
    Deadline* d = static_cast<Deadline*>(state->payload);
    d->byte = std::max(d->byte, state->current_byte_offset);
    // Deeply nested input costs tree-sitter up to ~330 bytes of heap per byte (docs/analysis.md
    // "Memory"): the parse stops at the budget instead of aborting in an allocation.
    if (d->heap->exhausted()) {
        d->out_of_memory = true;
        return true;
    }
    if (!d->limited || std::chrono::steady_clock::now() < d->at) return false;
    d->expired = true;
    return true; // tree-sitter stops; ts_parser_parse_with_options returns NULL
}

// The input in chunks of kChunk bytes; the lexer asks for the next one as it moves past the end of
// the current one. Past the deadline the input reads as ended, so the lexing operation under way
// stops within one chunk, and the progress callback stops the parse within 100 operations (a
// tree finished on the truncated input is discarded). One exception: a character cut by the end
// of a chunk makes the lexer ask again from inside its current chunk and decode the answer
// without checking for an empty one (a null dereference in tree-sitter 0.25's lexer.c), so bytes
// inside the chunk last served are always served again.
constexpr uint32_t kChunk = 64u << 10;

const char* read_chunk(void* payload, uint32_t byte, TSPoint, uint32_t* bytes_read) {
    Deadline* d = static_cast<Deadline*>(payload);
    *bytes_read = 0;
    if (byte >= d->code.size()) return "";
    size_t end = std::min<size_t>(d->code.size(), size_t{byte} + kChunk);
    if (d->limited && (d->expired || std::chrono::steady_clock::now() >= d->at)) {
        d->expired = true;
        if (byte < d->served_start || byte >= d->served_end) return "";
        end = d->served_end;
    }
    d->served_start = byte;
    d->served_end = static_cast<uint32_t>(end);
    *bytes_read = static_cast<uint32_t>(end - byte);
    return d->code.data() + byte;
}

std::string format_ms(double ms) {
    char buf[32];
    if (ms >= 10)
        std::snprintf(buf, sizeof buf, "%.0f", ms);
    else
        std::snprintf(buf, sizeof buf, "%.3g", ms);
    return buf;
}

// The budget of one call in milliseconds (0: no limit): unset means default_timeout_ms(size).
Status resolve_timeout(std::optional<double> timeout_ms, size_t size, double* ms) {
    if (!timeout_ms) {
        *ms = default_timeout_ms(size);
        return {};
    }
    const double t = *timeout_ms;
    if (std::isnan(t) || t < 0)
        return Status::error(
            "timeout_ms must be a number of milliseconds >= 0 (0: no limit), got " + format_ms(t));
    *ms = t > kMaxTimeoutMs ? 0 : t; // +infinity too
    return {};
}

// Parses code within timeout_ms milliseconds (0: no limit).
Status parse(std::string_view code, const Grammar& grammar, double timeout_ms,
             const HeapBudget& heap, Parsed* p) {
    const detail::LanguageRules& rules = *grammar.rules;
    Deadline deadline;
    deadline.code = code;
    deadline.limited = timeout_ms > 0;
    deadline.heap = &heap;
    deadline.at = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double, std::milli>(timeout_ms));
    p->parser = ts_parser_new();
    if (!p->parser || !ts_parser_set_language(p->parser, grammar.language))
        return Status::error(std::string("could not load the ") + rules.name + " grammar");
    const TSInput input{&deadline, read_chunk, TSInputEncodingUTF8, nullptr};
    TSParseOptions options{};
    if (deadline.limited || heap.enabled) {
        options.payload = &deadline;
        options.progress_callback = past_deadline;
    }
    p->tree = ts_parser_parse_with_options(p->parser, nullptr, input, options);
    if (deadline.out_of_memory) {
        if (p->tree) {
            ts_tree_delete(p->tree);
            p->tree = nullptr;
        }
        return Status::error("out of memory: parsing stopped at byte " +
                             std::to_string(deadline.byte) + " of " + std::to_string(code.size()) +
                             " with the heap full (WebAssembly memory stops at " +
                             std::to_string(HeapCeiling::bytes >> 20) + " MiB): the " + rules.name +
                             " syntax tree of this input needs more; analyze a smaller part");
    }
    if (deadline.expired) {
        if (p->tree) {
            ts_tree_delete(p->tree);
            p->tree = nullptr;
        }
        std::string m = "parsing stopped after " + format_ms(timeout_ms) + " ms at byte " +
                        std::to_string(deadline.byte) + " of " + std::to_string(code.size()) + ": ";
        // Real code parses at several MB/s; under 1 MB/s the error recovery is at work.
        if (deadline.byte < timeout_ms * 1000)
            m += std::string("the input is pathological for the tree-sitter ") + rules.name +
                 " grammar (its error recovery is slow on it)";
        else
            m += "the input is too large to parse in that time";
        return Status::error(m + "; raise timeout_ms to wait longer (0: no limit)");
    }
    if (!p->tree) return Status::error("parsing failed");
    return {};
}

Status check_input(std::string_view code, const std::string& language, const Grammar* given,
                   const Grammar** grammar) {
    if (code.size() > AnalysisLimits::max_bytes)
        return Status::error("code is " + std::to_string(code.size()) +
                             " bytes, over the limit of " +
                             std::to_string(AnalysisLimits::max_bytes));
    if (given) {
        if (!language.empty() && language != given->rules->name)
            return Status::error("language '" + language + "' was given the " + given->rules->name +
                                 " grammar");
        *grammar = given;
        return {};
    }
    if (!detail::find_language(language)) {
        std::string known;
        for (const std::string& l : languages()) known += (known.empty() ? "" : ", ") + l;
        return Status::error("language '" + language + "' is not supported (supported: " + known +
                             ")");
    }
    *grammar = built_in_grammar(language);
    if (!*grammar)
        return Status::error("the " + language +
                             " grammar is not loaded (this build loads grammars at run time)");
    return {};
}

// Checks the input, parses it within the budget, and hands the grammar and the tree to `use`.
template <typename F>
Status with_tree(std::string_view code, const std::string& language, const Grammar* given,
                 std::optional<double> timeout_ms, const HeapBudget& heap, F use) {
    const Grammar* grammar = nullptr;
    Status st = check_input(code, language, given, &grammar);
    if (!st.ok()) return st;
    double ms = 0;
    st = resolve_timeout(timeout_ms, code.size(), &ms);
    if (!st.ok()) return st;
    Parsed p;
    st = parse(code, *grammar, ms, heap, &p);
    if (!st.ok()) return st;
    return use(*grammar, p.tree);
}

// The analysis of a parsed tree (analyze() has checked the input).
void analyze_tree(std::string_view code, const AnalyzeOptions& options, const Grammar& g,
                  TSTree* tree, Analysis* out) {
    Analysis& a = *out;
    a = Analysis();
    a.language = g.rules->name;
    a.tokenizer = options.vocabulary ? options.vocabulary->name() : "lexical";

    Walk w = walk_tree(g, code, tree, options.vocabulary == nullptr);
    a.statements = w.statements;
    a.errors = std::move(w.errors);
    if (options.vocabulary)
        options.vocabulary->encode(code, &a.tokens);
    else
        a.tokens = std::move(w.leaves);
    const uint32_t size = static_cast<uint32_t>(code.size());

    const size_t n = a.tokens.size();
    a.unit.resize(n);
    a.statement.resize(n);
    if (options.hierarchy == Hierarchy::segments) {
        const int64_t seg = options.segment_size;
        const int64_t count = n == 0 ? 1 : (static_cast<int64_t>(n) + seg - 1) / seg;
        for (int64_t s = 0; s < count; ++s) {
            Unit u;
            u.kind = "segment";
            u.start = s == 0 || n == 0 ? 0 : a.tokens[s * seg].start;
            a.units.push_back(u);
        }
        for (size_t i = 0; i < a.units.size(); ++i)
            a.units[i].end = i + 1 < a.units.size() ? a.units[i + 1].start : size;
        for (size_t t = 0; t < n; ++t) a.unit[t] = static_cast<int32_t>(t / seg);
    } else {
        a.units =
            build_units(scan_units(g, code, tree, options.descend_classes), options.gap, size);
        size_t u = 0;
        for (size_t t = 0; t < n; ++t) {
            while (u + 1 < a.units.size() && a.units[u + 1].start <= a.tokens[t].start) ++u;
            a.unit[t] = static_cast<int32_t>(u);
        }
    }
    size_t s = 0;
    for (size_t t = 0; t < n; ++t) {
        while (s < w.statement_starts.size() && w.statement_starts[s] <= a.tokens[t].start) ++s;
        a.statement[t] = static_cast<int32_t>(s);
    }
    // Each unit's run of tokens (units partition the text, so a unit's tokens are contiguous)
    // and the statement indices they carry: what a reader of units needs without scanning.
    for (size_t t = 0; t < n; ++t) {
        Unit& u = a.units[static_cast<size_t>(a.unit[t])];
        const uint32_t st = static_cast<uint32_t>(a.statement[t]);
        if (u.token_end == 0) {
            u.token_start = static_cast<uint32_t>(t);
            u.statement_start = st;
        }
        u.token_end = static_cast<uint32_t>(t + 1);
        u.statement_start = std::min(u.statement_start, st);
        u.statement_end = std::max(u.statement_end, st + 1);
    }

    a.start_utf16.resize(n);
    a.end_utf16.resize(n);
    const bool ascii = std::all_of(code.begin(), code.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (ascii) { // the common case for code: UTF-16 offsets are byte offsets
        for (size_t t = 0; t < n; ++t) {
            a.start_utf16[t] = a.tokens[t].start;
            a.end_utf16[t] = a.tokens[t].end;
        }
        for (Unit& u : a.units) {
            u.start_utf16 = u.start;
            u.end_utf16 = u.end;
        }
        for (ErrorRegion& e : a.errors) {
            e.start_utf16 = e.start;
            e.end_utf16 = e.end;
        }
        return;
    }
    Utf16Index starts(code), ends(code);
    for (size_t t = 0; t < n; ++t) {
        a.start_utf16[t] = starts.at(a.tokens[t].start, false);
        a.end_utf16[t] = ends.at(a.tokens[t].end, true);
    }
    for (Unit& u : a.units) {
        u.start_utf16 = starts.at(u.start, false);
        u.end_utf16 = starts.at(u.end, true);
    }
    for (ErrorRegion& e : a.errors) {
        e.start_utf16 = starts.at(e.start, false);
        e.end_utf16 = starts.at(e.end, true);
    }
}

} // namespace

double default_timeout_ms(size_t bytes) {
    return ParseBudget::floor_ms + ParseBudget::ms_per_mb * (static_cast<double>(bytes) / 1e6);
}

Status parse_only(std::string_view code, const std::string& language, bool* has_error,
                  std::optional<double> timeout_ms, const HeapBudget& heap,
                  const Grammar* grammar) {
    return with_tree(code, language, grammar, timeout_ms, heap, [&](const Grammar&, TSTree* tree) {
        *has_error = ts_node_has_error(ts_tree_root_node(tree));
        return Status();
    });
}

Status analyze(std::string_view code, const AnalyzeOptions& options, Analysis* out) {
    if (options.hierarchy == Hierarchy::segments && options.segment_size < 1)
        return Status::error("segment_size must be an integer >= 1, got " +
                             std::to_string(options.segment_size));
    return with_tree(code, options.language, options.grammar, options.timeout_ms, options.heap,
                     [&](const Grammar& grammar, TSTree* tree) {
                         // The walk's bound covers the built-in tokenizers; a vocabulary
                         // whose encode takes more per byte adds the difference.
                         const size_t base = AnalysisLimits::encode_bytes_per_byte;
                         const size_t extra =
                             options.vocabulary
                                 ? std::max(options.vocabulary->encode_heap_per_byte(), base) - base
                                 : 0;
                         Status st = options.heap.reserve(
                             static_cast<double>(AnalysisLimits::walk_bytes_per_byte + extra) *
                                 static_cast<double>(code.size()),
                             "the analysis of the syntax tree");
                         if (st.ok()) analyze_tree(code, options, grammar, tree, out);
                         return st;
                     });
}

} // namespace hirope
