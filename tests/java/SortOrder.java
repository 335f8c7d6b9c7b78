// Prints Weka's Utils.sortWithNoMissingValues order of each line of numbers read from
// stdin (one array per line, space-separated Java doubles), one line of indices per
// array: for tests/trainer/test_j48order.py, which holds treegen's copy of J48's
// in-place sort order (treegen.trainer.j48order.weka_sort) to Weka's own.
// Compiled at test time against /usr/share/java/weka.jar (tests/support/weka.py).
import java.io.BufferedReader;
import java.io.InputStreamReader;

import weka.core.Utils;

public class SortOrder {
    public static void main(String[] args) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = r.readLine()) != null) {
            String[] f = line.trim().split(" ");
            double[] v = new double[f.length];
            for (int i = 0; i < f.length; i++) {
                v[i] = Double.parseDouble(f[i]);
            }
            int[] idx = Utils.sortWithNoMissingValues(v);
            for (int i = 0; i < idx.length; i++) {
                out.append(i == 0 ? "" : " ").append(idx[i]);
            }
            out.append('\n');
        }
        System.out.print(out);
    }
}
