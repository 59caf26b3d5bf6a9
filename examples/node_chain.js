// node_chain: outer -> middle -> leaf in JIT code, and allocation enough to
// keep the garbage collector's threads busy too.
// Usage: node [--perf-basic-prof] node_chain.js [seconds=2]
function leaf(n) { let x = n; for (let i = 0; i < 2000; i++) x = (x * 1103515245 + i) & 0x7fffffff; return x; }
function middle(n) { let s = 0; for (let i = 0; i < 50; i++) s ^= leaf(n + i); return s; }
function outer(n) { let s = 0; for (let i = 0; i < 10; i++) s ^= middle(n + i); return s; }
const until = Date.now() + 1000 * parseFloat(process.argv[2] || "2");
let s = 0;
const objs = [];
while (Date.now() < until) {
	s ^= outer(s);
	objs.push({ a: s, b: [s, s + 1] });
	if (objs.length > 10000) objs.length = 0;
}
console.log(s);
