package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.MirrorTrafficWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.topo.model.MirrorRules;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * pointsman through the real Temporal Web UI (the dev server's UI 2.42.1, in the system's headless
 * Chromium driven by Selenium through its own chromedriver): a switch started from the UI's Start
 * Workflow form runs on the sandbox and shows Completed; while it runs, its page shows the step it
 * is in and its event history names the steps; the progress query answers in the Queries tab; a
 * misspelled field fails the workflow at once with one sentence naming it; a MirrorTraffic started
 * from the same form mirrors the workflow's reads; Request Cancellation
 * rolls a switch back before the journal and lets it finish after. Screenshots go to
 * target/ui-screenshots.
 */
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TemporalUiTest {
  private static final Logger log = LoggerFactory.getLogger(TemporalUiTest.class);
  private static final String KS = "customer";
  private static final String WF = "commerce2customer";
  /** The id the README tells an operator to type. */
  private static final String UI_ID = Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, KS, WF);
  private static final Path SHOTS = Path.of("target", "ui-screenshots").toAbsolutePath();
  private static final Duration UI_WAIT = Duration.ofSeconds(60);

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().realTemporal("pointsman-ui")
      .switchFaults(faults).resetFaultsBeforeClose().createMoveTables().build();

  private static WebDriver driver;

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @BeforeAll
  static void up() throws Exception {
    Files.createDirectories(SHOTS);
    driver = chromium(WORLD.dir().resolve("chromium"));
  }

  /** Before the extension closes the world and the server: the page still talks to them. */
  @AfterAll
  static void down() {
    if (driver != null) {
      driver.quit();
    }
  }

  @AfterEach
  void keepThePage(TestInfo test) throws IOException {
    // the page as the test left it, for a look after a failure; a step a failed case held goes on
    Files.writeString(SHOTS.resolve(test.getTestMethod().orElseThrow().getName() + ".html"), driver.getPageSource());
    faults.reset();
  }

  /**
   * Debian's chromium and chromium-driver, named explicitly: Selenium Manager (which would download
   * a driver or a browser) is never asked, and nothing leaves the machine.
   */
  static WebDriver chromium(Path profile) {
    System.setProperty("webdriver.chrome.driver", chromedriver());
    ChromeOptions options = new ChromeOptions();
    options.setBinary(System.getenv().getOrDefault("POINTSMAN_CHROMIUM_BIN", "/usr/bin/chromium"));
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--window-size=1600,1100", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-default-apps", "--user-data-dir=" + profile);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(chromedriver()))
        .withLogFile(SHOTS.resolve("chromedriver.log").toFile())
        .build();
    ChromeDriver chrome = new ChromeDriver(service, options);
    // a run killed before @AfterAll would leave the driver and the browser running
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        chrome.quit();
      } catch (RuntimeException alreadyQuit) {
        // @AfterAll quit it
      }
    }, "chromium-quit"));
    return chrome;
  }

  private static String chromedriver() {
    return System.getenv().getOrDefault("POINTSMAN_CHROMEDRIVER_BIN", "/usr/bin/chromedriver");
  }

  @Test
  @Order(1)
  void aSwitchStartedFromTheUiFormRunsShowsItsStepsAndCompletes() throws Exception {
    FaultInjection.Block held = faults.blockOnce("switchReads", FaultInjection.When.BEFORE);
    startFromTheForm(Pointsman.SWITCH_TRAFFIC, UI_ID, Files.readString(Path.of("..", "docker", "start-workflow.json")));
    awaitUrlOf(UI_ID);
    await().atMost(UI_WAIT).until(held::reached);

    // while switchReads is held: the event history names the pending step by its summary ...
    awaitText("switchReads: REPLICA in cells");
    // ... and the User Metadata tab shows the step it is in (the workflow's current details)
    wait(UI_WAIT).until(ExpectedConditions.elementToBeClickable(By.cssSelector("[data-testid=user-metadata-tab]")))
        .click();
    awaitText("Current Details");
    // the UI renders the details' markdown in a frame of its own
    WebElement details = wait(UI_WAIT).until(ExpectedConditions.presenceOfElementLocated(
        By.xpath("//h3[normalize-space(.)='Current Details']/following::iframe[1]")));
    driver.switchTo().frame(details);
    try {
      wait(UI_WAIT).until(d -> bodyText().matches("(?s).*step \\d+: switchReads running.*"));
      assertThat(bodyText()).contains("SwitchTraffic", "customer.commerce2customer", "phase switching reads");
    } finally {
      driver.switchTo().defaultContent();
    }
    screenshot("switch-running-current-details.png");
    String runId = world().client().newUntypedWorkflowStub(UI_ID).describe().getExecution().getRunId();
    // ... and the Queries tab answers the progress query
    driver.get(workflowUrl(UI_ID, runId) + "/query");
    selectQuery("progress");
    wait(UI_WAIT).until(d -> text(By.cssSelector("[data-testid=query-result]")).contains("\"phase\""));
    assertThat(text(By.cssSelector("[data-testid=query-result]"))).contains("switchReads", "acquireLocks");
    screenshot("switch-running-progress-query.png");

    held.release();
    driver.get(workflowUrl(UI_ID, runId) + "/history");
    awaitStatus("Completed");
    // the event history names each step with its summary
    awaitText("switchReads: ");
    screenshot("switch-completed.png");

    WorkflowStub stub = world().client().newUntypedWorkflowStub(UI_ID);
    assertThat(stub.getResult(ActionResult.class).currentState()).isEqualTo(ALL_SWITCHED);
    world().assertDefinedState(KS, WF, "ALL_SWITCHED");
    assertThat(summaries(UI_ID)).anyMatch(s -> s.startsWith("switchReads: "))
        .anyMatch(s -> s.startsWith("stopSourceWrites: deny writes on commerce"))
        .anyMatch(s -> s.startsWith("createJournals"));
    reverse();
  }

  @Test
  @Order(2)
  void aMisspelledFieldFailsTheWorkflowAtOnceWithOneSentenceNamingIt() throws Exception {
    String id = UI_ID + "-typo";
    String typo = Files.readString(Path.of("..", "docker", "start-workflow.json"))
        .replace("\"targetKeyspace\"", "\"targetKeyspce\"");
    startFromTheForm(Pointsman.SWITCH_TRAFFIC, id, typo);
    awaitUrlOf(id);
    awaitStatus("Failed");
    String sentence = "SwitchTraffic input has unknown field targetKeyspce (and lacks the required targetKeyspace);"
        + " known fields are workflow, targetKeyspace";
    awaitText(sentence);
    assertThat(bodyText()).doesNotContain("[Source: REDACTED").doesNotContain("ValueInstantiationException");
    screenshot("switch-input-typo-failed.png");

    List<HistoryEvent> events = world().client().fetchHistory(id).getEvents();
    HistoryEvent failed = events.get(events.size() - 1);
    assertThat(failed.getEventType()).isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED);
    assertThat(failed.getWorkflowExecutionFailedEventAttributes().getFailure().getMessage()).startsWith(sentence);
    assertThat(events).noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
    assertThat(world().workflowState(KS, WF)).isEqualTo(NOT_SWITCHED);
  }

  /**
   * MirrorTraffic from the same form, as docker/README.md gives its input: it completes, its event
   * history names its step with a summary in the words of Vitess's dry run, and the workflow's reads
   * are mirrored; the same input at percent 0, through the API, ends that.
   */
  @Test
  @Order(3)
  void aMirrorTrafficStartedFromTheUiFormMirrorsTheReads() throws Exception {
    String id = Pointsman.workflowId(Pointsman.MIRROR_TRAFFIC, KS, WF);
    startFromTheForm(Pointsman.MIRROR_TRAFFIC, id, "{\"workflow\": \"" + WF + "\", \"targetKeyspace\": \"" + KS
        + "\", \"tabletTypes\": [\"REPLICA\", \"RDONLY\"], \"percent\": 5}");
    awaitUrlOf(id);
    awaitStatus("Completed");
    String step = "mirrorTableTraffic: Mirroring 5.00 percent of traffic from keyspace commerce to keyspace customer"
        + " for tablet types [REPLICA,RDONLY]";
    // the history's list may cut a long summary short; the whole of it is checked below
    awaitText("mirrorTableTraffic: Mirroring 5.00 percent");
    screenshot("mirror-traffic-completed.png");

    assertThat(summaries(id)).contains(step);
    MirrorRules rules = world().store().getRequired(world().store().keys().mirrorRules()).value();
    assertThat(rules.rules()).hasSize(4).allSatisfy(r -> assertThat(r.percent()).isEqualTo(5f));
    world().workflow(MirrorTrafficWorkflow.class, id + "-removal")
        .mirrorTraffic(MirrorTrafficRequest.of(WF, KS).withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY))
            .withPercent(0));
    assertThat(world().store().get(world().store().keys().mirrorRules())).as("the mirror rules once removed")
        .isEmpty();
  }

  @Test
  @Order(4)
  void requestCancellationBeforeTheJournalRollsTheSwitchBack() throws Exception {
    WorkflowStub stub = cancelFromTheUiWhileHeld("stopSourceWrites", FaultInjection.When.AFTER);
    assertThat(statusOf(stub)).isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED);
    Progress progress = stub.query("progress", Progress.class);
    assertThat(progress.steps()).filteredOn(s -> s.name().equals("stopSourceWrites"))
        .isNotEmpty().allMatch(s -> s.status() == StepStatus.COMPENSATED);
    assertThat(progress.steps()).extracting(StepProgress::name).doesNotContain("createJournals");
    assertThat(world().workflowState(KS, WF)).isEqualTo(NOT_SWITCHED);
    world().awaitStreamsRunning(KS, WF);
  }

  @Test
  @Order(5)
  void requestCancellationAfterTheJournalLetsTheSwitchFinish() throws Exception {
    WorkflowStub stub = cancelFromTheUiWhileHeld("allowTargetWrites", FaultInjection.When.BEFORE);
    Progress progress = stub.query("progress", Progress.class);
    assertThat(progress.steps()).noneMatch(s -> s.status() == StepStatus.COMPENSATED);
    assertThat(progress.steps()).extracting(StepProgress::name)
        .containsSubsequence("createJournals", "changeRouting", "releaseLocks");
    assertThat(world().workflowState(KS, WF)).isEqualTo(ALL_SWITCHED);
    world().assertDefinedState(KS, WF, "ALL_SWITCHED");
    reverse();
  }

  /**
   * Starts a switch held at {@code step}, requests its cancellation in the UI, lets it go on once
   * the workflow saw the request, and waits until the UI shows it Canceled.
   */
  private static WorkflowStub cancelFromTheUiWhileHeld(String step, FaultInjection.When when) throws Exception {
    FaultInjection.Block held = faults.blockOnce(step, when);
    WorkflowStub stub = startHeld(held);
    cancelFromTheUi(stub);
    world().awaitCancellationSeen(stub);
    held.release();
    awaitStatus("Canceled");
    return stub;
  }

  /** The Start Workflow form, filled in as a person would: id, task queue, type, the JSON input. */
  private static void startFromTheForm(String workflowType, String workflowId, String json) throws Exception {
    driver.get(WORLD.server().uiUrl() + "/namespaces/default/workflows/start-workflow");
    type(By.id("workflowId"), workflowId);
    type(By.id("taskQueue"), Pointsman.TASK_QUEUE);
    type(By.id("workflowType"), workflowType);
    WebElement editor = wait(UI_WAIT).until(ExpectedConditions.elementToBeClickable(
        By.cssSelector("[role=textbox][data-language=json]")));
    editor.click();
    editor.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
    // one line: the editor closes brackets and quotes itself, and types over them when they are typed
    String oneLine = new ObjectMapper().readTree(json).toString();
    editor.sendKeys(oneLine);
    // leaving the editor formats its JSON on several lines, which moves the button: a click that
    // leaves the editor and presses the button at once presses nothing
    driver.findElement(By.tagName("h1")).click();
    wait(UI_WAIT).until(d -> editor.getText().contains("\n"));
    assertThat(new ObjectMapper().readTree(editor.getText())).as("the input the editor holds")
        .isEqualTo(new ObjectMapper().readTree(json));
    WebElement start = wait(UI_WAIT).until(ExpectedConditions.elementToBeClickable(
        By.cssSelector("[data-testid=start-workflow-button]")));
    start.click();
    // the form stays; a notice links to the started workflow
    wait(UI_WAIT).until(ExpectedConditions.elementToBeClickable(
        By.xpath("//a[normalize-space(.)='Workflow started successfully']"))).click();
  }

  /** Starts a switch with the API (the form is proven above) and opens its page once the step is held. */
  private static WorkflowStub startHeld(FaultInjection.Block held) {
    SwitchTrafficWorkflow wf = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF));
    WorkflowClient.start(wf::switchTraffic, SwitchTrafficRequest.of(WF, KS));
    await().atMost(UI_WAIT).until(held::reached);
    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    driver.get(workflowUrl(stub.getExecution().getWorkflowId(), stub.getExecution().getRunId()) + "/history");
    awaitStatus("Running");
    return stub;
  }

  /** The workflow page's Request Cancellation, confirmed in its dialog. */
  private static void cancelFromTheUi(WorkflowStub stub) {
    // the header has the button twice, one of them hidden at this window width
    displayed(By.xpath("//button[normalize-space(.)='Request Cancellation']")).click();
    displayed(By.cssSelector("[data-testid=cancel-confirmation-modal] [data-testid=confirm-modal-button]")).click();
    await().atMost(UI_WAIT).pollInterval(Duration.ofMillis(300)).until(() -> world().client()
        .fetchHistory(stub.getExecution().getWorkflowId()).getEvents().stream()
        .anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED));
  }

  /** The Queries tab: the query type picked from its list, then Run Query. */
  private static WebElement displayed(By by) {
    return wait(UI_WAIT).until(d -> d.findElements(by).stream().filter(e -> e.isDisplayed() && e.isEnabled())
        .findFirst().orElse(null));
  }

  private static void selectQuery(String name) {
    wait(UI_WAIT).until(ExpectedConditions.elementToBeClickable(
        By.cssSelector("[data-testid=query-select-button]"))).click();
    wait(UI_WAIT).until(ExpectedConditions.elementToBeClickable(
        By.xpath("//li[@role='option'][.//span[normalize-space(text())='" + name + "']]"))).click();
    wait(UI_WAIT).until(ExpectedConditions.elementToBeClickable(
        By.xpath("//button[normalize-space(.)='Run Query']"))).click();
  }

  private static void reverse() {
    ActionResult back = world().workflow(ReverseTrafficWorkflow.class, id(Pointsman.REVERSE_TRAFFIC, KS, WF))
        .reverseTraffic(SwitchTrafficRequest.of(WF, KS));
    assertThat(back.currentState()).isEqualTo(NOT_SWITCHED);
    world().awaitStreamsRunning(KS, WF);
  }

  /** The summaries of every activity and local activity of the workflow's history, as the server keeps them. */
  private static List<String> summaries(String workflowId) {
    return world().client().fetchHistory(workflowId).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            || e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED)
        .filter(HistoryEvent::hasUserMetadata)
        .map(e -> e.getUserMetadata().getSummary().getData().toStringUtf8().replaceAll("^\"|\"$", ""))
        .toList();
  }

  private static WorkflowExecutionStatus statusOf(WorkflowStub stub) {
    return stub.describe().getWorkflowExecutionInfo().getStatus();
  }

  private static String workflowUrl(String workflowId, String runId) {
    return WORLD.server().uiUrl() + "/namespaces/default/workflows/" + workflowId + "/" + runId;
  }

  private static void awaitUrlOf(String workflowId) {
    wait(UI_WAIT).until(ExpectedConditions.urlContains("/workflows/" + workflowId + "/"));
  }

  /** The status badge beside the workflow id in the page's header (the UI keeps a running workflow's page fresh). */
  private static void awaitStatus(String status) {
    wait(Duration.ofMinutes(3)).until(d -> {
      WebElement header = d.findElement(By.xpath(
          "//h1[@data-testid='workflow-id-heading']/ancestor::div[.//*[normalize-space(text())='Run ID']][1]"));
      return List.of(header.getText().split("\\s+")).contains(status);
    });
  }

  private static void awaitText(String text) {
    wait(UI_WAIT).until(d -> bodyText().contains(text));
  }

  private static String bodyText() {
    return driver.findElement(By.tagName("body")).getText();
  }

  private static String text(By by) {
    return wait(UI_WAIT).until(ExpectedConditions.visibilityOfElementLocated(by)).getText();
  }

  private static void type(By by, String value) {
    WebElement e = wait(UI_WAIT).until(ExpectedConditions.elementToBeClickable(by));
    e.clear();
    e.sendKeys(value);
  }

  private static WebDriverWait wait(Duration d) {
    WebDriverWait w = new WebDriverWait(driver, d, Duration.ofMillis(250));
    w.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    w.ignoring(org.openqa.selenium.NoSuchElementException.class);
    return w;
  }

  private static void screenshot(String name) throws IOException {
    Path target = SHOTS.resolve(name);
    Files.copy(((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath(), target,
        StandardCopyOption.REPLACE_EXISTING);
    log.info("screenshot {}", target);
  }
}
