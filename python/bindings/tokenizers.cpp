// pybind11 glue of the tokenizers (hirope_tokenizers): loading a vocabulary file or a
// tokenizer.json, encoding text to ids (one text or a batch, the GIL released) and decoding ids.
#include "common.h"
#include "hirope/analysis.h"

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {
namespace python {

namespace {

// A loaded vocabulary. Immutable after loading, so threads may share it.
class Tokenizer {
  public:
    static std::shared_ptr<Tokenizer> from_data(const py::bytes& data) {
        auto t = std::make_shared<Tokenizer>();
        std::string_view bytes = data;
        Status st;
        {
            py::gil_scoped_release release;
            st = load_vocabulary(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                 &t->vocab_);
        }
        check(st);
        return t;
    }
    // A Hugging Face tokenizer.json; `name` is what analyses report as their tokenizer.
    static std::shared_ptr<Tokenizer> from_json(const py::bytes& data, std::string name) {
        auto t = std::make_shared<Tokenizer>();
        std::string_view json = data;
        Status st;
        {
            py::gil_scoped_release release;
            st = load_tokenizer_json(json, std::move(name), &t->vocab_);
        }
        check(st);
        return t;
    }

    const std::string& name() const { return vocab_->name(); }
    size_t size() const { return vocab_->size(); }
    const Vocabulary* vocabulary() const { return vocab_.get(); }

    py::array_t<int32_t> encode(py::handle text, py::handle special_tokens) const {
        const std::string bytes = text_bytes(text, "text", AnalysisLimits::max_bytes);
        const EncodeOptions options = encode_options(special_tokens);
        std::vector<int32_t> ids;
        {
            py::gil_scoped_release release;
            ids = encode_ids(bytes, options);
        }
        return numpy_copy(ids);
    }

    // ids, starts, ends (byte offsets into the UTF-8 text).
    py::tuple encode_offsets(py::handle text, py::handle special_tokens) const {
        const std::string bytes = text_bytes(text, "text", AnalysisLimits::max_bytes);
        const EncodeOptions options = encode_options(special_tokens);
        std::vector<Token> tokens;
        {
            py::gil_scoped_release release;
            vocab_->encode(bytes, &tokens, options);
        }
        std::vector<int32_t> ids(tokens.size());
        std::vector<uint32_t> starts(tokens.size()), ends(tokens.size());
        for (size_t i = 0; i < tokens.size(); ++i) {
            ids[i] = tokens[i].id;
            starts[i] = tokens[i].start;
            ends[i] = tokens[i].end;
        }
        return py::make_tuple(numpy_copy(ids), numpy_copy(starts), numpy_copy(ends));
    }

    py::list encode_batch(py::handle texts, py::handle special_tokens) const {
        if (py::isinstance<py::str>(texts) || py::isinstance<py::bytes>(texts) ||
            !py::isinstance<py::iterable>(texts))
            fail("texts must be a list of strings, got " + describe(texts));
        const EncodeOptions options = encode_options(special_tokens);
        std::vector<std::string> inputs;
        size_t i = 0;
        for (py::handle t : py::iter(texts)) {
            const std::string where = "texts[" + std::to_string(i++) + "]";
            inputs.push_back(text_bytes(t, where.c_str(), AnalysisLimits::max_bytes));
        }
        std::vector<std::vector<int32_t>> out(inputs.size());
        {
            py::gil_scoped_release release;
            for (size_t k = 0; k < inputs.size(); ++k) out[k] = encode_ids(inputs[k], options);
        }
        py::list result;
        for (const auto& ids : out) result.append(numpy_copy(ids));
        return result;
    }

    // The bytes of token ids, concatenated (a SentencePiece vocabulary's leading space dropped).
    py::bytes decode_bytes(py::handle ids_value) const {
        py::module_ np = py::module_::import("numpy");
        py::array a = py::array(np.attr("asarray")(ids_value));
        if (a.ndim() != 1 || (a.size() > 0 && a.dtype().kind() != 'i' && a.dtype().kind() != 'u'))
            fail("ids must be a 1-D array or list of token ids (integers), got " +
                 describe(ids_value));
        auto wide = py::array_t<long long, py::array::c_style | py::array::forcecast>::ensure(
            a.dtype().kind() == 'u' ? a.attr("astype")("int64") : a);
        const long long* p = wide.data();
        const size_t n = static_cast<size_t>(a.size());
        size_t total = 0;
        for (size_t i = 0; i < n; ++i) {
            if (p[i] < 0 || static_cast<unsigned long long>(p[i]) >= vocab_->size() ||
                vocab_->token_bytes(static_cast<int32_t>(p[i])).empty())
                fail("ids[" + std::to_string(i) + "] = " + std::to_string(p[i]) +
                     " is not a token of the '" + vocab_->name() + "' tokenizer");
            total += vocab_->token_bytes(static_cast<int32_t>(p[i])).size();
        }
        std::string out;
        out.reserve(total);
        for (size_t i = 0; i < n; ++i) out += vocab_->token_bytes(static_cast<int32_t>(p[i]));
        if (vocab_->prefix_space() && !out.empty() && out[0] == ' ') out.erase(out.begin());
        return py::bytes(out);
    }

  private:
    // special_tokens=False (text is text) or True (markers are their ids): EncodeOptions in
    // hirope/analysis.h.
    static EncodeOptions encode_options(py::handle special_tokens) {
        EncodeOptions options;
        options.special_tokens = boolean_arg(special_tokens, "special_tokens");
        return options;
    }

    std::vector<int32_t> encode_ids(const std::string& text, const EncodeOptions& options) const {
        std::vector<Token> tokens;
        vocab_->encode(text, &tokens, options);
        std::vector<int32_t> ids(tokens.size());
        for (size_t i = 0; i < tokens.size(); ++i) ids[i] = tokens[i].id;
        return ids;
    }

    std::unique_ptr<Vocabulary> vocab_;
};

} // namespace

std::string text_bytes(py::handle value, const char* name, size_t limit) {
    const std::string where = name;
    if (py::isinstance<py::bytes>(value)) {
        std::string_view b = py::reinterpret_borrow<py::bytes>(value);
        if (b.size() > limit)
            fail(where + " is " + grouped(b.size()) + " bytes, over the limit of " +
                 grouped(limit) + " bytes");
        // Bytes are taken as UTF-8, so they must be UTF-8: checked by Python's own decoder.
        PyObject* decoded =
            PyUnicode_DecodeUTF8(b.data(), static_cast<Py_ssize_t>(b.size()), "strict");
        if (!decoded) {
            PyObject *type = nullptr, *error = nullptr, *trace = nullptr;
            PyErr_Fetch(&type, &error, &trace);
            Py_ssize_t at = 0;
            if (!error || PyUnicodeDecodeError_GetStart(error, &at) != 0) at = 0;
            Py_XDECREF(type);
            Py_XDECREF(error);
            Py_XDECREF(trace);
            PyErr_Clear();
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x",
                          static_cast<unsigned char>(b[static_cast<size_t>(at)]));
            fail(where + " is bytes that are not UTF-8: byte " + grouped(static_cast<size_t>(at)) +
                 " (" + hex + ") is not part of a UTF-8 character; give a str, or bytes of UTF-8");
        }
        Py_DECREF(decoded);
        return std::string(b);
    }
    if (!py::isinstance<py::str>(value))
        fail(where + " must be a str (or bytes of UTF-8), got " + describe(value));
    const size_t chars = py::len(value);
    if (chars > limit)
        fail(where + " has " + grouped(chars) + " characters, over the limit of " + grouped(limit) +
             " bytes of UTF-8 (a character is one byte or more)");
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (!utf8) {
        PyErr_Clear();
        fail(where + " is not encodable as UTF-8 (it holds a lone surrogate)");
    }
    if (static_cast<size_t>(size) > limit)
        fail(where + " is " + grouped(static_cast<size_t>(size)) +
             " bytes of UTF-8, over the limit of " + grouped(limit) + " bytes");
    return std::string(utf8, static_cast<size_t>(size));
}

const Vocabulary* vocabulary_of(py::handle tokenizer) {
    if (tokenizer.is_none()) return nullptr;
    return tokenizer.cast<const Tokenizer&>().vocabulary();
}

void register_tokenizers(py::module_& m) {
    py::class_<Tokenizer, std::shared_ptr<Tokenizer>>(m, "Tokenizer")
        .def_static("from_data", &Tokenizer::from_data, py::arg("data"))
        .def_static("from_json", &Tokenizer::from_json, py::arg("data"), py::arg("name"))
        .def_property_readonly("name", &Tokenizer::name)
        .def_property_readonly("size", &Tokenizer::size)
        .def("encode", &Tokenizer::encode, py::arg("text"), py::kw_only(),
             py::arg("special_tokens") = false)
        .def("encode_offsets", &Tokenizer::encode_offsets, py::arg("text"), py::kw_only(),
             py::arg("special_tokens") = false)
        .def("encode_batch", &Tokenizer::encode_batch, py::arg("texts"), py::kw_only(),
             py::arg("special_tokens") = false)
        .def("decode_bytes", &Tokenizer::decode_bytes, py::arg("ids"));
    // The name of a user's tokenizer.json is "json-" + this (the core's, as the JS API's).
    m.def(
        "tokenizer_hash",
        [](const py::bytes& data) { return tokenizer_json_hash(std::string_view(data)); },
        py::arg("data"));
}

} // namespace python
} // namespace hirope
