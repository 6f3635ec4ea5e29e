// Applies a position scheme to q or k: y = x * a + x[partner] * b + c per token and dim, with the
// coefficients the C++ core computes in double precision (rotation, scaling, sinusoids).
struct Params { n: u32, head_dim: u32, width: u32, stride: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read> c: array<f32>;
@group(0) @binding(5) var<storage, read> partner: array<u32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let idx = gid.x + gid.y * p.stride;
  if (idx >= p.n * p.width) { return; }
  let t = idx / p.width;
  let col = idx % p.width;
  let i = col % p.head_dim;
  let head_base = t * p.width + (col - i);
  let ci = t * p.head_dim + i;
  y[idx] = x[idx] * a[ci] + x[head_base + partner[i]] * b[ci] + c[ci];
}
