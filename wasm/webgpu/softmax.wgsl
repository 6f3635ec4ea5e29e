// Row softmax in place, one workgroup per row: a max and a sum reduced through workgroup memory.
// A row i covers keys first..i with the causal mask (first: 0, or starts[i] under a layer's mask,
// the core's layer_rows), the masked rest becomes 0. A sink is one more column in the max and the
// sum, dropped.
struct Params {
  n: u32, causal: u32, row0: u32, mask: u32,
  pad0: u32, has_sink: u32, sink: f32, pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> starts: array<i32>;
@group(0) @binding(2) var<storage, read_write> x: array<f32>;

// 64 invocations per row: a wavefront on most GPUs, and a quarter of the barrier switches of 256
// on a software adapter (SwiftShader ran the row softmax 4-10x faster; bench/README.md).
const W: u32 = 64u;
var<workgroup> part: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let row = p.row0 + wg.x;
  if (row >= p.n) { return; }
  let len = select(p.n, row + 1u, p.causal == 1u);
  var first = 0u;
  if (p.mask == 1u) { first = u32(starts[row]); }
  let base = row * p.n;
  var m = select(-3.4e38, p.sink, p.has_sink == 1u);
  for (var j = first + lid.x; j < len; j += W) { m = max(m, x[base + j]); }
  part[lid.x] = m;
  workgroupBarrier();
  for (var s = W / 2u; s > 0u; s >>= 1u) {
    if (lid.x < s) { part[lid.x] = max(part[lid.x], part[lid.x + s]); }
    workgroupBarrier();
  }
  let row_max = part[0];
  workgroupBarrier();
  var sum = 0.0;
  for (var j = first + lid.x; j < len; j += W) {
    let e = exp(x[base + j] - row_max);
    x[base + j] = e;
    sum += e;
  }
  part[lid.x] = sum;
  workgroupBarrier();
  for (var s = W / 2u; s > 0u; s >>= 1u) {
    if (lid.x < s) { part[lid.x] += part[lid.x + s]; }
    workgroupBarrier();
  }
  let sink = select(0.0, exp(p.sink - row_max), p.has_sink == 1u);
  let inv = 1.0 / (part[0] + sink);
  for (var j = lid.x; j < p.n; j += W) {
    x[base + j] = select(0.0, x[base + j] * inv, j >= first && j < len);
  }
}
