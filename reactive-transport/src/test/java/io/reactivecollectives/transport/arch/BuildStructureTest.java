package io.reactivecollectives.transport.arch;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The published artifacts and the BOM agree: the BOM (which has no parent, so that importing it
 * manages nothing but this project's artifacts and the Reactor, Netty and JUnit BOMs) carries the parent's
 * version and manages every module that is published (all but the BOM and those with
 * {@code maven.deploy.skip}), each at {@code ${project.version}}, and imports Reactor's and JUnit's
 * BOMs at the parent's versions; each published jar names its module (Automatic-Module-Name).
 */
class BuildStructureTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final String BOM = "reactive-collectives-bom";

    @Test
    void theBomManagesEveryPublishedModuleAtTheParentsVersion() throws Exception {
        Element parent = read(ROOT.resolve("pom.xml"));
        Element bom = read(ROOT.resolve(BOM).resolve("pom.xml"));
        assertEquals(text(parent, "version"), text(bom, "version"), "the BOM's version is the parent's");

        Set<String> published = new TreeSet<>();
        for (Element module : children(child(parent, "modules"), "module")) {
            String name = module.getTextContent().trim();
            Element pom = read(ROOT.resolve(name).resolve("pom.xml"));
            Element props = child(pom, "properties");
            boolean skipped = props != null && child(props, "maven.deploy.skip") != null
                    && "true".equals(text(props, "maven.deploy.skip"));
            if (!name.equals(BOM) && !skipped) {
                published.add(text(pom, "artifactId"));
                assertTrue(props != null && child(props, "rc.module.name") != null
                                && text(props, "rc.module.name").startsWith("io.reactivecollectives."),
                        name + " sets rc.module.name (its jar's Automatic-Module-Name)");
            }
        }
        Set<String> managed = new TreeSet<>();
        Set<String> imported = new TreeSet<>();
        for (Element dep : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
            if (child(dep, "scope") != null && "import".equals(text(dep, "scope"))) {
                String property = text(dep, "artifactId") + ".version";
                assertEquals("${" + property + "}", text(dep, "version"), text(dep, "artifactId"));
                assertEquals(text(child(parent, "properties"), property), text(child(bom, "properties"), property),
                        "the BOM imports " + text(dep, "artifactId") + " at the parent's version");
                imported.add(text(dep, "groupId") + ":" + text(dep, "artifactId"));
                continue;
            }
            assertEquals("io.reactivecollectives", text(dep, "groupId"));
            assertEquals("${project.version}", text(dep, "version"), text(dep, "artifactId"));
            managed.add(text(dep, "artifactId"));
        }
        assertTrue(published.contains("reactive-transport") && published.contains("reactive-testkit"), published.toString());
        assertEquals(published, managed, "the BOM manages exactly the published modules");
        assertEquals(Set.of("io.projectreactor:reactor-bom", "io.netty:netty-bom", "org.junit:junit-bom"), imported,
                "the BOM imports Reactor's, Netty's and JUnit's BOMs, nothing else");
    }

    @Test
    void theExampleConsumerImportsThisVersionsBom() throws Exception {
        Element parent = read(ROOT.resolve("pom.xml"));
        Element consumer = read(ROOT.resolve("examples/consumer/pom.xml"));
        assertEquals(text(parent, "version"), text(child(consumer, "properties"), "reactive-collectives.version"),
                "examples/consumer builds against the version this build installs");
    }

    private static Element read(Path pom) throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        return doc.getDocumentElement();
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static String text(Element parent, String name) {
        return child(parent, name).getTextContent().trim();
    }
}
