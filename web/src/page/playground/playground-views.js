// The views below the attention playground's maps (distances per band, rotation angles, long-term
// decay): drawn in their own task, only once scrolled near, and after the typing pauses.
import { $, dark } from '../shell.js';
import { redrawCharts } from '../charts/chart-kit.js';
import { renderDistances } from '../charts/distances.js';
import { renderAngles } from '../charts/angles.js';
import { renderDecay } from '../charts/decay.js';
import { describeScheme } from '../../shared/playground-state.js';

/** The views of pg.result, kept drawn while they are on screen. */
export function createViews(pg) {
  const drawn = {}; // keys of the views on screen
  let viewsVisible = false;
  let viewsPending = null; // a result whose views are not drawn yet (the views are off screen)
  new IntersectionObserver(
    (entries) => {
      viewsVisible = entries.some((e) => e.isIntersecting);
      if (viewsVisible && viewsPending) {
        const value = viewsPending;
        viewsPending = null;
        if (!value.views.distances)
          pg.schedule(); // computed only once they are seen
        else renderViews(value);
      }
    },
    { rootMargin: '0px' },
  ).observe($('views'));
  // The charts take the page's colours when drawn: a change of colour scheme draws them again.
  dark.addEventListener('change', redrawCharts);

  // While a person types, the views wait until the typing pauses (VIEWS_AFTER_TYPING): they are
  // below the maps and cost tens of milliseconds on the page's thread.
  const VIEWS_AFTER_TYPING = 600;
  let viewsTimer = 0;
  function deferViews(value) {
    clearTimeout(viewsTimer);
    const wait = Math.max(0, pg.lastEdit + VIEWS_AFTER_TYPING - performance.now());
    viewsTimer = setTimeout(() => pg.result === value && renderViews(value), wait);
  }

  // The views below the maps, drawn in their own task and only when they are on screen.
  function renderViews(value) {
    const t = performance.now();
    const v = value.views;
    const names = {
      a: describeScheme(value.snapshot.a, value.facts.a),
      b: describeScheme(value.snapshot.b, value.facts.b),
    };
    // A stride is part of the analysis, so a new stride comes with new view keys.
    const stride = value.snapshot.stride;
    if (v.distances && drawn.distances !== v.distances.key) {
      renderDistances($('distances'), v.distances.value, stride);
      drawn.distances = v.distances.key;
    }
    for (const side of ['a', 'b']) {
      const key = `${v.angles[side]?.key}|${names[side]}|${value.facts[side].train}`;
      if (drawn[`angles-${side}`] !== key) {
        renderAngles(
          $(`angles-${side}`),
          v.angles[side]?.value ?? null,
          `${side.toUpperCase()}: ${names[side]}`,
          value.facts[side].train, // the side's own (a real model's trained length)
          stride,
        );
        drawn[`angles-${side}`] = key;
      }
    }
    const decayKey = `${v.decay.a.key}|${v.decay.b.key}|${names.a}|${names.b}`;
    if (drawn.decay !== decayKey) {
      renderDecay($('decay'), { ...v.decay, a: v.decay.a.value, b: v.decay.b.value }, names);
      drawn.decay = decayKey;
    }
    pg.paintTimes.views = performance.now() - t;
  }

  return {
    /** Whether the views are on screen (or near): the run asks for the distance views then. */
    get visible() {
      return viewsVisible;
    },
    /** A result's views: drawn once typing pauses when on screen, else when they come into view. */
    show(value) {
      if (viewsVisible && value.views.distances) deferViews(value);
      else viewsPending = value;
    },
    /** The run computes the views itself: nothing waits for them to come into view. */
    clearPending() {
      viewsPending = null;
    },
    /** A width change: everything is drawn again. */
    redraw() {
      for (const k of Object.keys(drawn)) delete drawn[k];
      if (viewsVisible) renderViews(pg.result);
    },
  };
}
