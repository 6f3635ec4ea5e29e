// A checkpoint's linear layer: y (rows x out) = x (rows x in) . W^T, in 16 x 16 tiles through
// workgroup memory. W is the core's packed panels (model::Model::linear_view): value (o, i) at
// (o / width) * in * width + i * width + o % width, stored as f32 (format 0), or as 16-bit f16
// (1) or bf16 (2) values two to a word, little-endian, widened here as the WASM kernels widen
// them (exactly).
struct Params { rows: u32, in_dim: u32, out_dim: u32, width: u32, format: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<u32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

const T: u32 = 16u;
var<workgroup> xt: array<array<f32, 16>, 16>;
var<workgroup> wt: array<array<f32, 16>, 16>;

fn weight(o: u32, i: u32) -> f32 {
  let e = (o / p.width) * p.in_dim * p.width + i * p.width + o % p.width;
  if (p.format == 0u) { return bitcast<f32>(w[e]); }
  let half = (w[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu;
  if (p.format == 1u) { return unpack2x16float(half).x; }
  return bitcast<f32>(half << 16u);
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let r = wg.y * T + lid.y;
  let o = wg.x * T + lid.x;
  let wo = wg.x * T + lid.y; // the weight row this invocation loads
  var acc = 0.0;
  for (var k0 = 0u; k0 < p.in_dim; k0 += T) {
    let k = k0 + lid.x;
    xt[lid.y][lid.x] = 0.0;
    wt[lid.y][lid.x] = 0.0;
    if (r < p.rows && k < p.in_dim) { xt[lid.y][lid.x] = x[r * p.in_dim + k]; }
    if (wo < p.out_dim && k < p.in_dim) { wt[lid.y][lid.x] = weight(wo, k); }
    workgroupBarrier();
    for (var e = 0u; e < T; e++) { acc += xt[lid.y][e] * wt[lid.x][e]; }
    workgroupBarrier();
  }
  if (r < p.rows && o < p.out_dim) { y[r * p.out_dim + o] = acc; }
}
