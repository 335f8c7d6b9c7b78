// Builds Weka's J48 (default options -C 0.25 -M 2, or those of a leading
// "--options '-R -N 3'") on every ARFF file named on the command line inside
// ONE JVM (JVM start-up would otherwise dominate the
// differential test), printing for each file the tree exactly as J48's
// toString() prints it plus the training-set error count, between markers:
//   === FILE <path>
//   <J48 toString()>
//   === Error on training data ===
//   Incorrectly Classified Instances <n>
//   Total Number of Instances <n>
//   P <row> <predicted class index as Evaluation counts it, -1 = unclassified> <class probabilities>
//   ... (one P line per training row)
//   === END
// With "--format X..." it instead prints, per number, Utils.doubleToString(x, 6)
// and Utils.roundDouble(x, 2) (the threshold and N/E formats J48 prints), so
// the test can check tests/support/reftrees.py's emulation of them.
// Compiled at test time by tests/test_weka_diff.py against /usr/share/java/weka.jar.
import java.io.BufferedReader;
import java.io.FileReader;

import weka.classifiers.Evaluation;
import weka.classifiers.trees.J48;
import weka.core.Attribute;
import weka.core.Instance;
import weka.core.Instances;
import weka.core.Utils;

public class J48Batch {
    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        if (args.length > 0 && args[0].equals("--format")) {
            for (int i = 1; i < args.length; i++) {
                double x = Double.parseDouble(args[i]);
                out.append(Utils.doubleToString(x, 6)).append('\t')
                    .append(Utils.roundDouble(x, 2)).append('\n');
            }
            System.out.print(out);
            return;
        }
        // "--options '-R -N 3'" first: J48 with those options instead of the defaults.
        String[] options = {"-C", "0.25", "-M", "2"};
        int first = 0;
        if (args.length > 1 && args[0].equals("--options")) {
            options = args[1].trim().split("\\s+");
            first = 2;
        }
        for (int a = first; a < args.length; a++) {
            String path = args[a];
            Instances data;
            try (BufferedReader r = new BufferedReader(new FileReader(path))) {
                data = new Instances(r);
            }
            // The attribute named "class" is the class (tests/data/weka-diff puts it
            // anywhere); without one, the last attribute.
            Attribute named = data.attribute("class");
            data.setClassIndex(named != null ? named.index() : data.numAttributes() - 1);
            J48 tree = new J48();
            tree.setOptions(options.clone());
            tree.buildClassifier(data);
            Evaluation ev = new Evaluation(data);
            StringBuilder preds = new StringBuilder();
            for (int i = 0; i < data.numInstances(); i++) {
                // Evaluation predicts Utils.maxIndex of the distribution of a copy
                // with the class set missing (evaluateModelOnce); record both.
                Instance row = data.instance(i);
                Instance classMissing = (Instance) row.copy();
                classMissing.setDataset(data);
                classMissing.setClassMissing();
                double[] dist = tree.distributionForInstance(classMissing);
                int pred = Utils.maxIndex(dist);
                if (dist[pred] <= 0) {
                    pred = -1;
                }
                ev.evaluateModelOnce(tree, row);
                preds.append("P ").append(i).append(' ').append(pred);
                for (double p : dist) {
                    preds.append(' ').append(p);
                }
                preds.append('\n');
            }
            out.append("=== FILE ").append(path).append('\n');
            out.append(tree.toString()).append('\n');
            out.append("=== Error on training data ===\n");
            out.append("Incorrectly Classified Instances ")
                .append(Math.round(ev.incorrect())).append('\n');
            out.append("Total Number of Instances ")
                .append(Math.round(ev.numInstances())).append('\n');
            out.append(preds);
            out.append("=== END\n");
        }
        System.out.print(out);
    }
}
