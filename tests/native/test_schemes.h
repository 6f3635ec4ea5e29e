// The scheme catalogue the native tests run: every scheme type, both layouts, partial rotation,
// every RoPE scaling and the HiRoPE variants, with parameters that make each one matter at the
// short lengths the tests use.
#pragma once

#include "hirope/hirope.h"

#include <string>
#include <vector>

struct NamedScheme {
    std::string name;
    hirope::Scheme scheme;
};

inline std::vector<NamedScheme> all_schemes() {
    using namespace hirope;
    std::vector<NamedScheme> cases;
    auto add = [&](const std::string& name, Scheme s) { cases.push_back({name, s}); };
    Scheme s;
    add("rope-half", s);
    s.layout = Layout::interleaved;
    add("rope-interleaved", s);
    s = Scheme();
    s.rotary_fraction = 0.5;
    add("rope-partial", s);
    s.layout = Layout::interleaved;
    add("rope-interleaved-partial", s);
    s = Scheme();
    s.base = 500000;
    add("rope-base", s);
    s = Scheme();
    s.scaling.type = ScalingType::linear;
    s.scaling.factor = 4;
    add("linear", s);
    s.scaling.type = ScalingType::ntk;
    add("ntk", s);
    s.scaling.type = ScalingType::dynamic_ntk;
    s.scaling.factor = 2;
    s.scaling.original_length = 16;
    add("dynamic-ntk", s);
    s.scaling.type = ScalingType::yarn;
    s.scaling.factor = 8;
    s.scaling.original_length = 32;
    add("yarn", s);
    s.scaling.type = ScalingType::longrope;
    s.scaling.factor = 4;
    s.scaling.original_length = 16;
    for (int j = 0; j < 8; ++j) {
        s.scaling.short_factor.push_back(1.0 + 0.1 * j);
        s.scaling.long_factor.push_back(1.0 + j);
    }
    add("longrope", s);
    s = Scheme();
    s.scaling.type = ScalingType::llama3;
    s.scaling.factor = 8;
    s.scaling.original_length = 64;
    add("llama3", s);
    s = Scheme();
    s.type = SchemeType::xpos;
    add("xpos", s);
    s.layout = Layout::interleaved;
    s.xpos_scale_base = 32;
    add("xpos-interleaved-base-32", s);
    s = Scheme();
    s.type = SchemeType::alibi;
    add("alibi", s);
    s.type = SchemeType::nope;
    add("nope", s);
    s.type = SchemeType::sinusoidal;
    add("sinusoidal", s);
    s.sinusoidal = SinusoidalVariant::fairseq;
    add("sinusoidal-fairseq", s);
    s = Scheme();
    s.type = SchemeType::rerope;
    s.window = 9;
    add("rerope", s);
    s.log_n = true;
    s.training_length = 8;
    add("rerope-log-n", s);
    s.type = SchemeType::leaky_rerope;
    s.leaky_factor = 3;
    s.log_n = false;
    add("leaky-rerope", s);
    s.type = SchemeType::self_extend;
    s.group = 4;
    add("self-extend", s);
    s.type = SchemeType::hirope;
    s.window = 6;
    add("hirope", s);
    s.layout = Layout::interleaved;
    s.ratio = 1.0 / 3;
    add("hirope-interleaved-third", s);
    s.token_on_high = true;
    add("hirope-token-on-high", s);
    s.token_on_high = false;
    s.levels = 3;
    s.statement_ratio = 0.25;
    s.layout = Layout::half;
    add("hirope-3-levels", s);
    s = Scheme();
    s.type = SchemeType::hirope;
    s.window = 5;
    s.scaling.type = ScalingType::yarn;
    s.scaling.factor = 4;
    s.scaling.original_length = 32;
    add("hirope-yarn", s);
    return cases;
}

// Whether a scheme's logits depend on relative positions only: all but sinusoidal, the log-n
// query scale and the scalings whose frequencies depend on the sequence length (dynamic NTK,
// LongRoPE), which are absolute by definition (docs/schemes.md section 1.6).
inline bool relative_only(const hirope::Scheme& s) {
    using hirope::ScalingType;
    return s.type != hirope::SchemeType::sinusoidal && !s.log_n &&
           s.scaling.type != ScalingType::dynamic_ntk && s.scaling.type != ScalingType::longrope;
}
