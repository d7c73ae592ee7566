package io.pointsman.workflows.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Finds what looks like a secret in a workflow history as Temporal's JSON export writes it: a field
 * named like one (password, secret, API key, private key, credentials, authorization), or a value
 * that carries one (a PEM private key, {@code password=...}, a bearer token, {@code user:pass@} in
 * a URL). Payloads and their metadata are base64 in the export, so they are decoded and searched as
 * JSON (or text) too: that is where an activity's arguments and results, and so a leak, would be.
 */
final class SecretLookingFields {
  /** Field names a secret travels under; a fencing or lock "token" is not one. */
  private static final Pattern SECRET_NAME = Pattern.compile(
      "(?i).*(passw(or)?d|pwd|secret|api[-_]?key|private[-_]?key|credential|authorization|bearer|access[-_]?key).*");
  private static final Pattern SECRET_VALUE = Pattern.compile(
      "(?i)(-----BEGIN [A-Z ]*PRIVATE KEY-----"
          // "using password: YES" is MySQL's access-denied text, which names no password
          + "|passw(or)?d\\s*[=:]\\s*(?!yes\\b|no\\b)[^\\s,;)]"
          + "|bearer\\s+[A-Za-z0-9._~+/=-]{8,}"
          + "|[a-z][a-z0-9+.-]*://[^/\\s:@]+:[^/\\s@]+@)");
  private static final ObjectMapper JSON = new ObjectMapper();

  private SecretLookingFields() {}

  /** Every finding in the history JSON {@code text}, as {@code path: what}; empty when none. */
  static List<String> in(String text) {
    List<String> found = new ArrayList<>();
    try {
      walk(JSON.readTree(text), "$", found);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("not a JSON history: " + e.getMessage(), e);
    }
    return found;
  }

  private static void walk(JsonNode node, String path, List<String> found) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        String at = path + "." + field.getKey();
        if (SECRET_NAME.matcher(field.getKey()).matches()) {
          found.add(at + ": a field named like a secret");
        }
        if ((field.getKey().equals("data") || path.endsWith(".metadata")) && field.getValue().isTextual()) {
          decoded(field.getValue().asText(), at, found);
        } else {
          walk(field.getValue(), at, found);
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(node.get(i), path + "[" + i + "]", found);
      }
    } else if (node.isTextual()) {
      text(node.asText(), path, found);
    }
  }

  /** A payload's bytes: searched as JSON when they are JSON, else as text. */
  private static void decoded(String base64, String path, List<String> found) {
    String content;
    try {
      content = new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException notBase64) {
      text(base64, path, found);
      return;
    }
    try {
      JsonNode parsed = JSON.readTree(content);
      if (parsed != null && (parsed.isContainerNode() || parsed.isTextual())) {
        walk(parsed, path + "(decoded)", found);
        return;
      }
    } catch (java.io.IOException notJson) {
      // plain text or binary: searched as text below
    }
    text(content, path + "(decoded)", found);
  }

  private static void text(String value, String path, List<String> found) {
    if (SECRET_VALUE.matcher(value).find()) {
      String shown = value.length() > 120 ? value.substring(0, 120) + "..." : value;
      found.add(path + ": a value carrying a secret: " + shown);
    }
  }
}
