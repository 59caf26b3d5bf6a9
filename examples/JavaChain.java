// JavaChain: outer -> middle -> leaf, interpreted first, then compiled by
// C1 and C2 into HotSpot's code heap, whose three segments (interpreter and
// stubs, C1's code, C2's code) are separate executable mappings without a
// file: a walk from a C2 leaf to the thread's start crosses all three.
// Usage: java [-XX:+PreserveFramePointer] -cp DIR JavaChain [seconds=2]
public class JavaChain {
	static double leaf(int n) {
		double s = 0;
		for (int i = 1; i < n; i++)
			s += Math.sqrt(i) / (i + 1.0);
		return s;
	}

	static double middle(int n) { return leaf(n) + leaf(n / 2); }

	static double outer(int n) { return middle(n) - middle(n / 3); }

	public static void main(String[] args) {
		double secs = args.length > 0 ? Double.parseDouble(args[0]) : 2;
		long until = System.nanoTime() + (long)(secs * 1e9);
		double t = 0;
		while (System.nanoTime() < until)
			t += outer(100000);
		System.out.println(t);
	}
}
