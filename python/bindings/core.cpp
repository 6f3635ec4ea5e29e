// pybind11 glue of the core (hirope_core): attention, rotation, relative distances, inverse
// frequencies and bands, seeded vectors, the core's limits. Shapes, dtypes and limits are checked
// before any output is allocated; the work runs with the GIL released.
#include "common.h"
#include "hirope/hirope.h"

#include <cmath>
#include <string>
#include <vector>

namespace hirope {
namespace python {

namespace {

int64_t count(py::handle value, const char* name, int64_t min, int64_t max) {
    return integer_arg(value, name, min, max);
}

struct Shape {
    int64_t n = 0;
    int head_dim = 0, heads = 1;
    int64_t width() const { return static_cast<int64_t>(heads) * head_dim; }
};

Shape shape(py::handle n, py::handle head_dim, py::handle heads) {
    Shape s;
    s.n = count(n, "n", 1, Limits::max_tokens);
    s.head_dim = static_cast<int>(count(head_dim, "head_dim", 1, Limits::max_head_dim));
    if (s.head_dim % 2 != 0)
        fail("head_dim must be a positive even integer, got " + std::to_string(s.head_dim));
    s.heads = static_cast<int>(count(heads, "heads", 1, Limits::max_heads));
    return s;
}

std::vector<int32_t> int32_column(py::handle value, const char* name, int64_t n) {
    py::module_ np = py::module_::import("numpy");
    py::array a = py::isinstance<py::array>(value) ? py::reinterpret_borrow<py::array>(value)
                                                   : py::array(np.attr("asarray")(value));
    if (a.ndim() != 1)
        fail(std::string(name) + " must be a 1-D array of integers, got " + describe(value));
    if (a.shape(0) != n)
        fail(std::string(name) + " has length " + std::to_string(a.shape(0)) +
             ", expected n = " + std::to_string(n));
    const char kind = a.dtype().kind();
    if (n > 0 && kind != 'i' && kind != 'u')
        fail(std::string(name) + " must be an array of integers (int32), got dtype " +
             py::str(a.dtype()).cast<std::string>());
    std::vector<int32_t> out(static_cast<size_t>(n));
    if (a.dtype().is(py::dtype::of<int32_t>())) {
        auto c = py::array_t<int32_t, py::array::c_style | py::array::forcecast>::ensure(a);
        std::copy(c.data(), c.data() + n, out.begin());
        return out;
    }
    auto wide = py::array_t<long long, py::array::c_style | py::array::forcecast>::ensure(
        a.dtype().kind() == 'u' ? a.attr("astype")("int64") : a);
    if (!wide) fail(std::string(name) + " must be an array of 32-bit integers");
    for (int64_t i = 0; i < n; ++i) {
        const long long x = wide.data()[i];
        if (x < INT32_MIN || x > INT32_MAX)
            fail(std::string(name) + "[" + std::to_string(i) + "] must be a 32-bit integer, got " +
                 std::to_string(x));
        out[static_cast<size_t>(i)] = static_cast<int32_t>(x);
    }
    return out;
}

py::array_t<float>
attention(py::handle scheme_value, py::handle q_value, py::handle k_value, py::handle v_value,
          py::handle token, py::handle unit, py::handle statement, py::handle n_value,
          py::handle head_dim_value, py::handle heads_value, py::handle causal_value,
          const std::string& output, py::handle scale_value, const std::string& kernel_name,
          const std::string& mask_type, py::handle window_value, py::handle chunk_size_value,
          py::handle sinks_value, py::handle temperature_value, py::handle softcap_value) {
    const Shape sh = shape(n_value, head_dim_value, heads_value);
    const bool causal = boolean_arg(causal_value, "causal");
    const SchemeSpec spec = read_scheme(scheme_value);
    if (output != "logits" && output != "probs" && output != "values")
        fail("output must be 'logits', 'probs' or 'values', got '" + output + "'");
    const int64_t n = sh.n, width = sh.width();
    const char* shape_text = "n * heads * head_dim";
    auto q = float32_array(q_value, "q", n * width, shape_text);
    auto k = float32_array(k_value, "k", n * width, shape_text);
    py::array_t<float, py::array::c_style> v;
    if (!v_value.is_none()) v = float32_array(v_value, "v", n * width, shape_text);
    if (output == "values" && v_value.is_none()) fail("output 'values' needs v");
    check(check_causal(spec.scheme.type, causal));
    double scale = 0;
    if (!scale_value.is_none()) {
        const char* requirement = "a positive finite number";
        scale = number_arg(scale_value, "scale", requirement);
        if (!(std::isfinite(scale) && scale > 0))
            fail(std::string("scale must be ") + requirement + ", got " + describe(scale_value));
    }
    double softcap = 0;
    if (!softcap_value.is_none()) {
        const char* requirement = "a positive finite number";
        softcap = number_arg(softcap_value, "softcap", requirement);
        if (!(std::isfinite(softcap) && softcap > 0))
            fail(std::string("softcap must be ") + requirement + ", got " +
                 describe(softcap_value));
    }
    Kernel kernel = Kernel::fast;
    if (kernel_name == "reference")
        kernel = Kernel::reference;
    else if (kernel_name != "tiled")
        fail("kernel must be one of 'tiled', 'reference', got '" + kernel_name + "'");
    if (output != "values") check(check_matrix_output(sh.heads, n, n)); // the core's one rule
    // A layer's mask, sinks and temperature (hirope.attention's mask, sinks, temperature): the
    // wrapper passes the dicts' values, the core checks them (AttentionPlan::prepare).
    AttentionKind mask_kind = AttentionKind::full;
    if (!attention_kind_from_name(mask_type, &mask_kind)) fail(unknown_mask_message(mask_type));
    const int64_t most = int64_t{1} << 53;
    const int64_t window =
        window_value.is_none() ? 0 : integer_arg(window_value, "mask.window", -most, most);
    const int64_t chunk_size = chunk_size_value.is_none()
                                   ? 0
                                   : integer_arg(chunk_size_value, "mask.chunkSize", -most, most);
    py::array_t<float, py::array::c_style> sinks;
    if (!sinks_value.is_none()) sinks = float32_array(sinks_value, "sinks", sh.heads, "heads");
    QueryTemperature temperature;
    if (!temperature_value.is_none()) {
        const py::tuple t = py::reinterpret_borrow<py::tuple>(temperature_value);
        temperature.enabled = true;
        temperature.floor_scale = number_arg(t[0], "temperature.floorScale", "a number");
        temperature.scale = number_arg(t[1], "temperature.scale", "a number");
        temperature.offset = integer_arg(t[2], "temperature.offset", -most, most);
    }
    PositionArrays pos = read_positions(token, unit, statement, n, spec.segment_size);
    AttentionRequest r;
    r.q = q.data();
    r.k = k.data();
    r.v = v_value.is_none() ? nullptr : v.data();
    r.n = n;
    r.head_dim = sh.head_dim;
    r.heads = sh.heads;
    r.positions = pos.view();
    r.scheme = spec.scheme;
    r.causal = causal;
    r.output = output == "logits" ? Output::logits : Output::probs;
    r.scale = scale;
    r.mask_kind = mask_kind;
    r.window = window;
    r.chunk_size = chunk_size;
    r.sinks = sinks_value.is_none() ? nullptr : sinks.data();
    r.temperature = temperature;
    r.softcap = softcap;
    const bool values = output == "values";
    py::array_t<float> out = values ? py::array_t<float>({n, width})
                                    : py::array_t<float>({static_cast<int64_t>(sh.heads), n, n});
    float* dst = out.mutable_data();
    Status st;
    {
        py::gil_scoped_release release;
        AttentionPlan plan;
        st = plan.prepare(r, kernel);
        if (st.ok() && values) st = plan.output_rows(0, n, dst);
        for (int h = 0; st.ok() && !values && h < sh.heads; ++h)
            st = plan.rows(h, 0, n, dst + static_cast<int64_t>(h) * n * n);
    }
    check(st);
    return out;
}

py::array_t<float> rotate_rows(py::handle scheme_value, py::handle x_value, py::handle token,
                               py::handle unit, py::handle statement, py::handle n_value,
                               py::handle head_dim_value, py::handle heads_value,
                               py::handle role_value, py::handle branch_value) {
    const Shape sh = shape(n_value, head_dim_value, heads_value);
    const SchemeSpec spec = read_scheme(scheme_value);
    auto x = float32_array(x_value, "x", sh.n * sh.width(), "n * heads * head_dim");
    const SchemeCatalogue& v = scheme_catalogue();
    const Role role = static_cast<Role>(enum_value(v.roles, role_value, "role"));
    const Branch branch = static_cast<Branch>(enum_value(v.branches, branch_value, "branch"));
    PositionArrays pos = read_positions(token, unit, statement, sh.n, spec.segment_size);
    py::array_t<float> out({sh.n, sh.width()});
    float* dst = out.mutable_data();
    Status st;
    {
        py::gil_scoped_release release;
        st = rotate(spec.scheme, sh.head_dim, sh.heads, sh.n, pos.view(), role, branch, x.data(),
                    dst);
    }
    check(st);
    return out;
}

py::list band_list(const SchemeSpec& spec, int head_dim) {
    check(validate(spec.scheme, head_dim));
    py::list out;
    for (const Band& b : bands(spec.scheme, head_dim)) {
        py::dict o;
        o["name"] = b.name;
        o["pairBegin"] = b.pair_begin;
        o["pairEnd"] = b.pair_end;
        out.append(o);
    }
    return out;
}

py::list distances(py::handle scheme_value, py::handle token, py::handle unit, py::handle statement,
                   py::handle n_value, py::handle head_dim_value) {
    const Shape sh = shape(n_value, head_dim_value, py::int_(1));
    const SchemeSpec spec = read_scheme(scheme_value);
    if (!spec.rotary) fail("scheme '" + spec.name + "' has no rotary bands");
    if (sh.n * sh.n > Limits::max_output_elements)
        fail("n * n = " + std::to_string(sh.n * sh.n) + " exceeds the output limit of " +
             std::to_string(Limits::max_output_elements) + " elements");
    PositionArrays pos = read_positions(token, unit, statement, sh.n, spec.segment_size);
    py::list list = band_list(spec, sh.head_dim);
    for (size_t b = 0; b < list.size(); ++b) {
        py::array_t<float> d({sh.n, sh.n});
        float* dst = d.mutable_data();
        Status st;
        {
            py::gil_scoped_release release;
            st = relative_distances(spec.scheme, sh.head_dim, sh.n, pos.view(), static_cast<int>(b),
                                    dst);
        }
        check(st);
        list[b]["distances"] = d;
    }
    return list;
}

py::dict frequencies(py::handle scheme_value, py::handle head_dim_value, py::handle seq_len) {
    const Shape sh = shape(py::int_(1), head_dim_value, py::int_(1));
    const SchemeSpec spec = read_scheme(scheme_value);
    // NoPE (a model's NoPE layer) has no frequencies and the factor 1; other schemes without
    // rotary frequencies are refused.
    if (!spec.rotary && spec.scheme.type != SchemeType::nope)
        fail("scheme '" + spec.name + "' has no rotary frequencies");
    const int64_t len = count(seq_len, "seq_len", 1, INT64_MAX / 2);
    std::vector<double> f;
    check(inverse_frequencies(spec.scheme, sh.head_dim, len, &f));
    py::dict out;
    out["values"] = numpy_copy(f);
    out["attentionFactor"] = attention_factor(spec.scheme, len);
    return out;
}

py::dict qk(py::handle n_value, py::handle head_dim_value, py::handle heads_value,
            py::handle ids_value, py::handle seed_value) {
    const Shape sh = shape(n_value, head_dim_value, heads_value);
    const uint64_t seed = static_cast<uint64_t>(
        integer_arg(seed_value, "seed", 0, INT64_MAX, "a non-negative integer"));
    std::vector<int32_t> ids(static_cast<size_t>(sh.n));
    if (ids_value.is_none())
        for (int64_t i = 0; i < sh.n; ++i) ids[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    else
        ids = int32_column(ids_value, "token_ids", sh.n);
    py::dict out;
    const char* names[] = {"q", "k", "v"};
    for (int role = 0; role < 3; ++role) {
        py::array_t<float> a({sh.n, sh.width()});
        float* dst = a.mutable_data();
        {
            py::gil_scoped_release release;
            seeded_vectors(seed, ids.data(), sh.n, sh.width(), role, dst);
        }
        out[names[role]] = a;
    }
    return out;
}

py::dict limits() {
    py::dict o;
    o["max_tokens"] = Limits::max_tokens;
    o["max_head_dim"] = Limits::max_head_dim;
    o["max_heads"] = Limits::max_heads;
    o["max_output_elements"] = Limits::max_output_elements;
    return o;
}

// The numeric value of an is_number() value; an int past a double's range gives +-infinity.
double read_double(py::handle value, bool* overflow) {
    *overflow = false;
    if (!is_integer(value)) {
        const double x = PyFloat_AsDouble(value.ptr());
        if (x == -1.0 && PyErr_Occurred()) throw py::error_already_set();
        return x;
    }
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!index) throw py::error_already_set();
    const double x = PyLong_AsDouble(index.ptr());
    if (x == -1.0 && PyErr_Occurred()) {
        PyErr_Clear(); // OverflowError: the int is past a double's range
        *overflow = true;
        return Py_SIZE(index.ptr()) < 0 ? -HUGE_VAL : HUGE_VAL;
    }
    return x;
}

} // namespace

std::string describe(py::handle value) {
    if (PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr())) {
        // Its repr would fill the message (or exceed Python's digit limit for str()).
        const size_t bits = value.attr("bit_length")().cast<size_t>();
        if (bits > 128)
            return std::string(Py_SIZE(value.ptr()) < 0 ? "a negative" : "an") + " integer of " +
                   std::to_string(bits) + " bits";
    }
    return py::repr(value).cast<std::string>();
}

bool is_boolean(py::handle value) {
    if (PyBool_Check(value.ptr())) return true;
    if (PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr())) return false;
    return py::isinstance(value, py::module_::import("numpy").attr("bool_"));
}

bool is_integer(py::handle value) {
    if (PyBool_Check(value.ptr())) return false;
    if (PyLong_Check(value.ptr())) return true;
    if (PyFloat_Check(value.ptr())) return false;
    return py::isinstance(value, py::module_::import("numpy").attr("integer"));
}

bool is_number(py::handle value) {
    if (PyBool_Check(value.ptr())) return false;
    if (PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr())) return true;
    py::module_ np = py::module_::import("numpy");
    return py::isinstance(value, np.attr("integer")) || py::isinstance(value, np.attr("floating"));
}

int64_t integer_arg(py::handle value, const std::string& name, int64_t min, int64_t max,
                    const std::string& requirement) {
    auto refuse = [&](const std::string& what) {
        fail(name + " must be " + (requirement.empty() ? what : requirement) + ", got " +
             describe(value));
    };
    if (!is_integer(value)) refuse("an integer");
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!index) throw py::error_already_set();
    int overflow = 0; // past 64 bits: -1 or 1, not an exception
    const long long x = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow < 0 || (!overflow && x < min)) refuse("at least " + std::to_string(min));
    if (overflow > 0) // past 64 bits: "at most", as a requirement such as ">= 1" would mislead
        fail(name + " must be at most " + std::to_string(max) + ", got " + describe(value));
    if (x > max) refuse("at most " + std::to_string(max));
    return x;
}

double number_arg(py::handle value, const std::string& name, const std::string& requirement) {
    if (!is_number(value)) fail(name + " must be " + requirement + ", got " + describe(value));
    bool overflow = false;
    const double x = read_double(value, &overflow);
    if (overflow)
        fail(name + " must be " + requirement + ", got " + describe(value) +
             " (past a float's range)");
    return x;
}

double number_value(py::handle value) {
    bool overflow = false;
    return read_double(value, &overflow);
}

bool boolean_arg(py::handle value, const std::string& name) {
    if (!is_boolean(value)) fail(name + " must be a boolean, got " + describe(value));
    return PyObject_IsTrue(value.ptr()) == 1;
}

py::array_t<float, py::array::c_style> float32_array(py::handle value, const char* name,
                                                     int64_t expected, const char* shape_text) {
    if (!py::isinstance<py::array>(value))
        fail(std::string(name) + " must be a numpy float32 array, got " +
             value.get_type().attr("__name__").cast<std::string>());
    py::array a = py::reinterpret_borrow<py::array>(value);
    // float64 (and other float dtypes) are converted once, here; integers are refused, as in
    // the JS API (a Float32Array).
    if (a.dtype().kind() != 'f')
        fail(std::string(name) +
             " must be a numpy float32 array (or float64, converted), got dtype " +
             py::str(a.dtype()).cast<std::string>());
    if (a.size() != expected)
        fail(std::string(name) + " has " + std::to_string(a.size()) + " elements, expected " +
             shape_text + " = " + std::to_string(expected));
    return py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
}

PositionArrays read_positions(py::handle token, py::handle unit, py::handle statement, int64_t n,
                              int64_t segment_size) {
    PositionArrays p;
    if (token.is_none()) {
        p.token.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) p.token[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    } else {
        p.token = int32_column(token, "positions.token", n);
    }
    if (!unit.is_none()) p.unit = int32_column(unit, "positions.unit", n);
    if (!statement.is_none()) p.statement = int32_column(statement, "positions.statement", n);
    if (segment_size > 0 && p.unit.empty()) {
        p.unit.resize(p.token.size());
        for (size_t i = 0; i < p.token.size(); ++i)
            p.unit[i] = static_cast<int32_t>(
                std::floor(static_cast<double>(p.token[i]) / static_cast<double>(segment_size)));
    }
    return p;
}

void register_core(py::module_& m) {
    m.def("attention", &attention, py::arg("scheme"), py::arg("q"), py::arg("k"), py::arg("v"),
          py::arg("token"), py::arg("unit"), py::arg("statement"), py::arg("n"),
          py::arg("head_dim"), py::arg("heads"), py::arg("causal"), py::arg("output"),
          py::arg("scale"), py::arg("kernel"), py::arg("mask_type") = "full",
          py::arg("window") = py::none(), py::arg("chunk_size") = py::none(),
          py::arg("sinks") = py::none(), py::arg("temperature") = py::none(),
          py::arg("softcap") = py::none());
    m.def("rotate", &rotate_rows, py::arg("scheme"), py::arg("x"), py::arg("token"),
          py::arg("unit"), py::arg("statement"), py::arg("n"), py::arg("head_dim"),
          py::arg("heads"), py::arg("role"), py::arg("branch"));
    m.def("relative_distances", &distances, py::arg("scheme"), py::arg("token"), py::arg("unit"),
          py::arg("statement"), py::arg("n"), py::arg("head_dim"));
    m.def(
        "bands",
        [](py::handle scheme, py::handle head_dim) {
            const Shape sh = shape(py::int_(1), head_dim, py::int_(1));
            return band_list(read_scheme(scheme), sh.head_dim);
        },
        py::arg("scheme"), py::arg("head_dim"));
    m.def("inverse_frequencies", &frequencies, py::arg("scheme"), py::arg("head_dim"),
          py::arg("seq_len"));
    m.def("qk", &qk, py::arg("n"), py::arg("head_dim"), py::arg("heads"), py::arg("token_ids"),
          py::arg("seed"));
    m.def("limits", &limits);
    // The argument readers above, for the package's Python layer (one reading of numbers).
    m.def(
        "as_integer",
        [](py::handle value, const std::string& name, int64_t min, int64_t max,
           const std::string& requirement) {
            return integer_arg(value, name, min, max, requirement);
        },
        py::arg("value"), py::arg("name"), py::arg("min"), py::arg("max"),
        py::arg("requirement") = "");
    m.def(
        "as_number",
        [](py::handle value, const std::string& name, const std::string& requirement) {
            return number_arg(value, name, requirement);
        },
        py::arg("value"), py::arg("name"), py::arg("requirement"));
    m.def(
        "as_boolean",
        [](py::handle value, const std::string& name) { return boolean_arg(value, name); },
        py::arg("value"), py::arg("name"));
    m.def("kernel_name", [] { return std::string(kernel_name()); });
}

} // namespace python
} // namespace hirope
