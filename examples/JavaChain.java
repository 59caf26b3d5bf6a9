// JavaChain: outer -> middle -> leaf, interpreted first, then compiled by
// C1 and C2 into HotSpot's code heap, whose three segments (interpreter and
// stubs, C1's code, C2's code) are separate executable mappings without a
// file: a walk from a C2 leaf to the thread's start crosses all three.
// With "pool", the chain runs as a small worker service's requests do: in
// a thread pool's worker (pool-1-thread-1), called through the pool's
// compiled code, whose frames keep no frame pointer without
// -XX:+PreserveFramePointer.
// PAST_INLINING: each method of the chain carries a branch never taken
// whose bytecode puts it past C2's inlining limit (FreqInlineSize, 325
// bytes), so that every sample's chain is the same whenever C1 and C2
// compile it: a caller inlined is one frame with its callee (as perf map
// and the walker name it alike).
// Usage: java [-XX:+PreserveFramePointer] -cp DIR JavaChain [seconds=2] [pool]
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public class JavaChain {
	static double leaf(int n) {
		double s = 0;
		if (n < 0)	// never taken: see PAST_INLINING
			return new double[] {
				0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5,
				10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5,
				20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5,
				30.5, 31.5, 32.5, 33.5, 34.5, 35.5, 36.5, 37.5, 38.5, 39.5,
				40.5, 41.5, 42.5, 43.5, 44.5, 45.5, 46.5, 47.5, 48.5, 49.5,
				50.5, 51.5, 52.5, 53.5, 54.5, 55.5, 56.5, 57.5, 58.5, 59.5,
			}[-n % 60];
		for (int i = 1; i < n; i++)
			s += Math.sqrt(i) / (i + 1.0);
		return s;
	}

	static double middle(int n) {
		if (n < 0)	// never taken: see PAST_INLINING
			return new double[] {
				0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5,
				10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5,
				20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5,
				30.5, 31.5, 32.5, 33.5, 34.5, 35.5, 36.5, 37.5, 38.5, 39.5,
				40.5, 41.5, 42.5, 43.5, 44.5, 45.5, 46.5, 47.5, 48.5, 49.5,
				50.5, 51.5, 52.5, 53.5, 54.5, 55.5, 56.5, 57.5, 58.5, 59.5,
			}[-n % 60];
		return leaf(n) + leaf(n / 2);
	}

	static double outer(int n) {
		if (n < 0)	// never taken: see PAST_INLINING
			return new double[] {
				0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5,
				10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5,
				20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5,
				30.5, 31.5, 32.5, 33.5, 34.5, 35.5, 36.5, 37.5, 38.5, 39.5,
				40.5, 41.5, 42.5, 43.5, 44.5, 45.5, 46.5, 47.5, 48.5, 49.5,
				50.5, 51.5, 52.5, 53.5, 54.5, 55.5, 56.5, 57.5, 58.5, 59.5,
			}[-n % 60];
		return middle(n) - middle(n / 3);
	}

	// a request of the pool mode
	static final class Request implements Callable<Double> {
		public Double call() { return outer(20000); }
	}

	static double serve(long until) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(1);
		double t = 0;

		try {
			while (System.nanoTime() < until)
				t += pool.submit(new Request()).get();
		} finally {
			pool.shutdown();
		}
		return t;
	}

	public static void main(String[] args) throws Exception {
		double secs = args.length > 0 ? Double.parseDouble(args[0]) : 2;
		long until = System.nanoTime() + (long)(secs * 1e9);
		double t = 0;
		if (args.length > 1 && args[1].equals("pool"))
			t = serve(until);
		else
			while (System.nanoTime() < until)
				t += outer(100000);
		System.out.println(t);
	}
}
