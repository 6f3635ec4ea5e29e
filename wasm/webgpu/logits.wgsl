// Scaled q.k^T for one head in 16 x 16 tiles through workgroup memory, with the causal mask, a
// layer's mask (row i sees keys from starts[i], the core's layer_rows by the tokens' positions,
// non-decreasing in i), the query temperature's factor per row, the ALiBi bias, the windowed
// schemes' near/far choice (near when t_q - t_k < window) and the logit soft-cap.
struct Params {
  n: u32, head_dim: u32, width: u32, head: u32,
  causal: u32, windowed: u32, window: i32, scale: f32,
  slope: f32, masked: f32, mask: u32, softcap: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> q_near: array<f32>;
@group(0) @binding(2) var<storage, read> k_near: array<f32>;
@group(0) @binding(3) var<storage, read> q_far: array<f32>;
@group(0) @binding(4) var<storage, read> k_far: array<f32>;
@group(0) @binding(5) var<storage, read> tokens: array<i32>;
@group(0) @binding(6) var<storage, read> qscale: array<f32>;
@group(0) @binding(7) var<storage, read> starts: array<i32>;
@group(0) @binding(8) var<storage, read_write> logits: array<f32>;

const T: u32 = 16u;
var<workgroup> qn: array<array<f32, 16>, 16>;
var<workgroup> kn: array<array<f32, 16>, 16>;
var<workgroup> qf: array<array<f32, 16>, 16>;
var<workgroup> kf: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let i0 = wg.y * T;
  let j0 = wg.x * T;
  let i = i0 + lid.y;
  let j = j0 + lid.x;
  // The whole tile is above the diagonal, or before its first row's first key (starts only grow).
  let tile_masked = (p.causal == 1u && j0 > i0 + T - 1u) ||
    (p.mask == 1u && i0 < p.n && j0 + T - 1u < u32(starts[i0]));
  var near = 0.0;
  var far = 0.0;
  let off = p.head * p.head_dim;
  if (!tile_masked) {
    for (var d0 = 0u; d0 < p.head_dim; d0 += T) {
      let d = d0 + lid.x;
      let dk = d0 + lid.y;
      let qi = i0 + lid.y;
      let kj = j0 + lid.x;
      qn[lid.y][lid.x] = 0.0;
      kn[lid.x][lid.y] = 0.0;
      qf[lid.y][lid.x] = 0.0;
      kf[lid.x][lid.y] = 0.0;
      if (qi < p.n && d < p.head_dim) {
        qn[lid.y][lid.x] = q_near[qi * p.width + off + d];
        if (p.windowed == 1u) { qf[lid.y][lid.x] = q_far[qi * p.width + off + d]; }
      }
      if (kj < p.n && dk < p.head_dim) {
        kn[lid.x][lid.y] = k_near[kj * p.width + off + dk];
        if (p.windowed == 1u) { kf[lid.x][lid.y] = k_far[kj * p.width + off + dk]; }
      }
      workgroupBarrier();
      for (var e = 0u; e < T; e++) {
        near += qn[lid.y][e] * kn[lid.x][e];
        if (p.windowed == 1u) { far += qf[lid.y][e] * kf[lid.x][e]; }
      }
      workgroupBarrier();
    }
  }
  if (i >= p.n || j >= p.n) { return; }
  var value = p.masked;
  let hidden = (p.causal == 1u && j > i) || (p.mask == 1u && j < u32(starts[i]));
  if (!hidden) {
    let dt = tokens[i] - tokens[j];
    let use_near = p.windowed == 0u || dt < p.window;
    value = select(far, near, use_near) * qscale[i] * p.scale - p.slope * abs(f32(dt));
    if (p.softcap > 0.0) { value = p.softcap * tanh(value / p.softcap); }
  }
  logits[i * p.n + j] = value;
}
