// Builds Weka's J48 (default options) on every ARFF file named on the command line
// inside ONE JVM and prints, per file, the numbers its distributionForInstance reads
// (ClassifierTree.getProbs), node by node in pre-order, read by reflection, then that
// distribution of every row: for tests/committee/test_weka_getprobs_live.py, which
// feeds the numbers to treegen's getProbs and compares the bits.
//
//   === FILE <path>
//   N <leaf 0/1> <empty 0/1> total <total()> prob <Distribution.prob(c) per class>
//     share <per branch:
//     perBag(b) / total(), C45Split.weights' shares; none at a leaf>
//   D <prob(c, b) per class>   (after a node's line, once per empty son b, in order)
//   P <row> <distributionForInstance of the row, per class>
//   === END
// Compiled at test time against /usr/share/java/weka.jar (tests/support/weka.py).
import java.io.BufferedReader;
import java.io.FileReader;
import java.lang.reflect.Field;

import weka.classifiers.trees.J48;
import weka.classifiers.trees.j48.ClassifierSplitModel;
import weka.classifiers.trees.j48.ClassifierTree;
import weka.classifiers.trees.j48.Distribution;
import weka.core.Instances;

public class J48Numbers {
    static Object field(Object o, Class<?> c, String name) throws Exception {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    static void walk(ClassifierTree t, StringBuilder out) throws Exception {
        boolean leaf = (Boolean) field(t, ClassifierTree.class, "m_isLeaf");
        boolean empty = (Boolean) field(t, ClassifierTree.class, "m_isEmpty");
        ClassifierSplitModel m =
            (ClassifierSplitModel) field(t, ClassifierTree.class, "m_localModel");
        Distribution d = m.distribution();
        out.append("N ").append(leaf ? 1 : 0).append(' ').append(empty ? 1 : 0).append(" total ")
            .append(d.total()).append(" prob");
        for (int c = 0; c < d.numClasses(); c++) {
            out.append(' ').append(d.prob(c));
        }
        out.append(" share");
        ClassifierTree[] sons = leaf ? new ClassifierTree[0]
                                     : (ClassifierTree[]) field(t, ClassifierTree.class, "m_sons");
        for (int b = 0; b < sons.length; b++) {
            out.append(' ').append(d.perBag(b) / d.total());
        }
        out.append('\n');
        for (int b = 0; b < sons.length; b++) {
            if ((Boolean) field(sons[b], ClassifierTree.class, "m_isEmpty")) {
                out.append("D");
                for (int c = 0; c < d.numClasses(); c++) {
                    out.append(' ').append(d.prob(c, b));
                }
                out.append('\n');
            }
        }
        for (ClassifierTree s : sons) {
            walk(s, out);
        }
    }

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String path : args) {
            Instances data;
            try (BufferedReader r = new BufferedReader(new FileReader(path))) {
                data = new Instances(r);
            }
            data.setClassIndex(data.numAttributes() - 1);
            J48 j48 = new J48();
            j48.buildClassifier(data);
            out.append("=== FILE ").append(path).append('\n');
            walk((ClassifierTree) field(j48, J48.class, "m_root"), out);
            for (int i = 0; i < data.numInstances(); i++) {
                out.append("P ").append(i);
                for (double p : j48.distributionForInstance(data.instance(i))) {
                    out.append(' ').append(p);
                }
                out.append('\n');
            }
            out.append("=== END\n");
        }
        System.out.print(out);
    }
}
