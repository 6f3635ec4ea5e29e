// The attention output for one head: out[i, head] = probs[i, :] . v[:, head], in 16 x 16 tiles
// through workgroup memory.
struct Params { n: u32, head_dim: u32, width: u32, head: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> probs: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

const T: u32 = 16u;
var<workgroup> pt: array<array<f32, 16>, 16>;
var<workgroup> vt: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let i = wg.y * T + lid.y;
  let c = wg.x * T + lid.x;
  let off = p.head * p.head_dim;
  var acc = 0.0;
  for (var j0 = 0u; j0 < p.n; j0 += T) {
    let jp = j0 + lid.x;
    let jv = j0 + lid.y;
    pt[lid.y][lid.x] = 0.0;
    vt[lid.y][lid.x] = 0.0;
    if (i < p.n && jp < p.n) { pt[lid.y][lid.x] = probs[i * p.n + jp]; }
    if (jv < p.n && c < p.head_dim) { vt[lid.y][lid.x] = v[jv * p.width + off + c]; }
    workgroupBarrier();
    for (var e = 0u; e < T; e++) { acc += pt[lid.y][e] * vt[e][lid.x]; }
    workgroupBarrier();
  }
  if (i < p.n && c < p.head_dim) { out[i * p.width + off + c] = acc; }
}
