// Comparisons that NaN and a wrong length cannot slip past (issue 35).
//
// A running worst kept with `std::max(worst, err)` or `if (err > worst)` drops a NaN error:
// std::max(0.0, NaN) is 0, and NaN > 0 is false. So a kernel that returns NaN everywhere would
// have "worst error 0". These helpers keep a NaN once seen, and report a length mismatch as an
// infinite error, so that `CHECK(worst <= tol)` fails on both.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace hirope_test {

// The worse of a running worst and a new error; NaN (in either) wins and stays.
inline double worse(double worst, double err) {
    if (std::isnan(worst)) return worst;
    return err <= worst ? worst : err; // false for NaN err: it is kept
}

// The largest |got - want| / (1 + |want|) (relative) or |got - want| (absolute) over two
// equal-length sequences. Infinities must match exactly (otherwise infinite error); NaN in either
// gives NaN; a length mismatch gives infinity. `where`, when given, receives the index of the worst
// element.
template <class A, class B>
double max_error(const A& got, const B& want, bool relative, size_t* where = nullptr) {
    if (where) *where = 0;
    if (got.size() != want.size()) return std::numeric_limits<double>::infinity();
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
        double err;
        if (std::isinf(g) || std::isinf(w))
            err = g == w ? 0.0 : std::numeric_limits<double>::infinity();
        else
            err = relative ? std::fabs(g - w) / (1 + std::fabs(w)) : std::fabs(g - w);
        const double before = worst;
        worst = worse(worst, err);
        if (where && !(worst == before || (std::isnan(worst) && std::isnan(before)))) *where = i;
    }
    return worst;
}

template <class A, class B>
double max_relative_error(const A& got, const B& want, size_t* where = nullptr) {
    return max_error(got, want, true, where);
}

template <class A, class B>
double max_abs_error(const A& got, const B& want, size_t* where = nullptr) {
    return max_error(got, want, false, where);
}

// A view of n elements at p, for the helpers above.
template <class T> struct Span {
    const T* p;
    size_t n;
    size_t size() const { return n; }
    const T& operator[](size_t i) const { return p[i]; }
};
template <class T> Span<T> span(const T* p, size_t n) {
    return {p, n};
}

} // namespace hirope_test
