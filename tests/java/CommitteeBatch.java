// Builds Weka's AdaBoostM1 or Bagging with J48 (default options) on every ARFF file
// named on the command line inside ONE JVM, for the committee differential tests
// (tests/committee/test_committee_weka.py) and the bench (bench/committee.py).
//
//   CommitteeBatch boost N FILE...        AdaBoostM1 -I N -W J48
//   CommitteeBatch bag N S FILE...        Bagging -I N -S S -W J48
//   CommitteeBatch cv K S boost|bag|j48 N S2 FILE...
//                                         Evaluation.crossValidateModel(K folds,
//                                         new Random(S)) of that classifier
//   CommitteeBatch resample S N FILE...   N bootstrap samples with new Random(S)
//                                         (Instances.resampleWithWeights(Random)),
//                                         the drawn row numbers (rows carry an
//                                         attribute "row" as their first column)
//   CommitteeBatch time boost|bag N FILE  build time only, in milliseconds
//
// For boost and bag it prints, per file:
//   === FILE <path>
//   <toString() of the committee>
//   === DETAIL
//   R <performed rounds or members>
//   T <build time in milliseconds>
//   U <build time in milliseconds of this thread's CPU time>
//   B <i> <vote weight i as Double.toString: full precision> (boost only)
//   P <row> <class as Evaluation predicts it, -1 = none> <distribution...>
//   M <row> <each member's classifyInstance>
//   === END
// Compiled at test time against /usr/share/java/weka.jar (tests/support/weka.py).
import java.io.BufferedReader;
import java.io.FileReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;

import weka.classifiers.Classifier;
import weka.classifiers.Evaluation;
import weka.classifiers.meta.AdaBoostM1;
import weka.classifiers.meta.Bagging;
import weka.classifiers.trees.J48;
import weka.core.Instance;
import weka.core.Instances;
import weka.core.Utils;

public class CommitteeBatch {
    /** AdaBoostM1 with its vote weights and members in reach. */
    static class Boost extends AdaBoostM1 {
        double[] betas() { return m_Betas; }
        int rounds() { return m_NumIterationsPerformed; }
        Classifier member(int i) { return m_Classifiers[i]; }
    }

    /** Bagging with its members in reach. */
    static class Bag extends Bagging {
        int rounds() { return m_Classifiers.length; }
        Classifier member(int i) { return m_Classifiers[i]; }
    }

    static Instances read(String path) throws Exception {
        Instances data;
        try (BufferedReader r = new BufferedReader(new FileReader(path))) {
            data = new Instances(r);
        }
        data.setClassIndex(data.numAttributes() - 1);
        return data;
    }

    static Classifier make(String kind, int n, int seed) throws Exception {
        if (kind.equals("boost")) {
            Boost b = new Boost();
            b.setOptions(new String[] {"-I", "" + n, "-W", "weka.classifiers.trees.J48"});
            return b;
        }
        if (kind.equals("bag")) {
            Bag b = new Bag();
            b.setOptions(new String[] {"-I", "" + n, "-S", "" + seed, "-W",
                                       "weka.classifiers.trees.J48"});
            return b;
        }
        return new J48();
    }

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        String mode = args[0];
        if (mode.equals("time")) {
            Instances data = read(args[3]);
            Classifier c = make(args[1], Integer.parseInt(args[2]), 1);
            long t0 = System.nanoTime();
            c.buildClassifier(data);
            long t1 = System.nanoTime();
            System.out.println((t1 - t0) / 1000000);
            return;
        }
        if (mode.equals("resample")) {
            int seed = Integer.parseInt(args[1]);
            int draws = Integer.parseInt(args[2]);
            for (int a = 3; a < args.length; a++) {
                Instances data = read(args[a]);
                Random random = new Random(seed);
                out.append("=== FILE ").append(args[a]).append('\n');
                for (int d = 0; d < draws; d++) {
                    Instances s = data.resampleWithWeights(random);
                    out.append("S");
                    for (int i = 0; i < s.numInstances(); i++) {
                        out.append(' ').append((int) s.instance(i).value(0));
                    }
                    out.append('\n');
                }
                out.append("=== END\n");
            }
            System.out.print(out);
            return;
        }
        if (mode.equals("cv")) {
            int folds = Integer.parseInt(args[1]);
            int seed = Integer.parseInt(args[2]);
            String kind = args[3];
            int n = Integer.parseInt(args[4]);
            int bagSeed = Integer.parseInt(args[5]);
            for (int a = 6; a < args.length; a++) {
                Instances data = read(args[a]);
                Evaluation ev = new Evaluation(data);
                ev.crossValidateModel(make(kind, n, bagSeed), data, folds, new Random(seed));
                out.append("=== FILE ").append(args[a]).append('\n');
                out.append("I ").append(ev.incorrect()).append('\n');
                out.append("C ").append(ev.correct()).append('\n');
                out.append("U ").append(ev.unclassified()).append('\n');
                out.append("=== END\n");
            }
            System.out.print(out);
            return;
        }
        int n = Integer.parseInt(args[1]);
        int seed = mode.equals("bag") ? Integer.parseInt(args[2]) : 1;
        int first = mode.equals("bag") ? 3 : 2;
        for (int a = first; a < args.length; a++) {
            Instances data = read(args[a]);
            Classifier c = make(mode, n, seed);
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long u0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            c.buildClassifier(data);
            long t1 = System.nanoTime();
            long u1 = mx.getCurrentThreadCpuTime();
            int rounds = mode.equals("boost") ? ((Boost) c).rounds() : ((Bag) c).rounds();
            out.append("=== FILE ").append(args[a]).append('\n');
            out.append(c.toString()).append('\n');
            out.append("=== DETAIL\n");
            out.append("R ").append(rounds).append('\n');
            out.append("T ").append((t1 - t0) / 1000000).append('\n');
            out.append("U ").append((u1 - u0) / 1000000).append('\n');
            if (mode.equals("boost")) {
                double[] betas = ((Boost) c).betas();
                for (int i = 0; i < rounds; i++) {
                    out.append("B ").append(i).append(' ').append(Double.toString(betas[i]))
                        .append('\n');
                }
            }
            for (int i = 0; i < data.numInstances(); i++) {
                // Evaluation's class: Utils.maxIndex of the distribution of a copy with the
                // class missing (evaluateModelOnce), -1 when that probability is 0.
                Instance row = data.instance(i);
                Instance classMissing = (Instance) row.copy();
                classMissing.setDataset(data);
                classMissing.setClassMissing();
                double[] dist = c.distributionForInstance(classMissing);
                int pred = Utils.maxIndex(dist);
                if (dist[pred] <= 0) {
                    pred = -1;
                }
                out.append("P ").append(i).append(' ').append(pred);
                for (double p : dist) {
                    out.append(' ').append(p);
                }
                out.append('\n');
                out.append("M ").append(i);
                for (int m = 0; m < rounds; m++) {
                    Classifier member = mode.equals("boost") ? ((Boost) c).member(m)
                                                             : ((Bag) c).member(m);
                    out.append(' ').append((int) member.classifyInstance(classMissing));
                }
                out.append('\n');
            }
            out.append("=== END\n");
        }
        System.out.print(out);
    }
}
