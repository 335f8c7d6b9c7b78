// Trains a Weka classifier on a training ARFF file and classifies a test ARFF file,
// for each job named on the command line as four arguments: the classifier's class
// name, its options (one argument, split as Weka's command line does), the training
// file and the test file.  ONE JVM runs every job; per job it prints
//   === FILE <test path>
//   <classifyInstance> <distributionForInstance, each Double.toString>   (per test row)
//   === END
// classifyInstance is what J48's -p output prints (ClassifierTree: the first class
// whose probability exceeds the best so far by more than 1e-6).
// Compiled at test time by tests/reference/test_weka_testset.py.
import java.io.BufferedReader;
import java.io.FileReader;

import weka.classifiers.Classifier;
import weka.core.Instances;
import weka.core.Utils;

public class TestSetBatch {
    private static Instances read(String path) throws Exception {
        try (BufferedReader r = new BufferedReader(new FileReader(path))) {
            Instances data = new Instances(r);
            data.setClassIndex(data.numAttributes() - 1);
            return data;
        }
    }

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (int a = 0; a + 3 < args.length; a += 4) {
            Classifier c = Classifier.forName(args[a], Utils.splitOptions(args[a + 1]));
            c.buildClassifier(read(args[a + 2]));
            Instances test = read(args[a + 3]);
            out.append("=== FILE ").append(args[a + 3]).append('\n');
            for (int i = 0; i < test.numInstances(); i++) {
                out.append((int) c.classifyInstance(test.instance(i)));
                for (double p : c.distributionForInstance(test.instance(i))) {
                    out.append(' ').append(Double.toString(p));
                }
                out.append('\n');
            }
            out.append("=== END\n");
        }
        System.out.print(out);
    }
}
