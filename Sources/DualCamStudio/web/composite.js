// The composite: every camera's latest picture placed as the recorder will place it, from
// the geometry the server computed (state.layout), so the page never has its own idea of
// a layout. Drawing follows the recorder's compositor: each picture covers its slot
// (cropped across the middle, and up or down by the slot's anchor) or fits inside it
// whole; insets get rounded corners and a border inside the edge.

import { stats } from './preview.js';

/** The recorder's "no signal" grey (Y'CbCr 32/128/128 in full-range RGB). */
const NO_SIGNAL = '#131313';
/** What no picture covers (a grid's gaps, the bars beside a fitted picture): the compositor's black. */
const BACKGROUND = '#000000';

const evenNearest = (numerator, denominator) =>
  2 * Math.floor((numerator + denominator) / (2 * denominator));

/**
 * LayoutGeometry.coverCrop, to the pixel: the part of the source that, scaled to the
 * slot, covers it without distortion. Integer maths as in Swift, so the preview crops
 * exactly what the recording does.
 */
export function coverCrop(sourceWidth, sourceHeight, slotWidth, slotHeight, anchor = 'center') {
  let width = sourceWidth;
  let height = sourceHeight;
  if (slotWidth * sourceHeight >= slotHeight * sourceWidth) {
    height = Math.min(sourceHeight, Math.max(2, evenNearest(sourceWidth * slotHeight, slotWidth)));
  } else {
    width = Math.min(sourceWidth, Math.max(2, evenNearest(sourceHeight * slotWidth, slotHeight)));
  }
  const y = anchor === 'top' ? 0
    : anchor === 'bottom' ? (sourceHeight - height) & ~1
      : evenNearest(sourceHeight - height, 2);
  return { x: evenNearest(sourceWidth - width, 2), y, width, height };
}

/** LayoutGeometry.fitRect: the largest centred rectangle of the source's shape in the slot. */
export function fitRect(sourceWidth, sourceHeight, slot) {
  let width = slot.width;
  let height = slot.height;
  if (slot.width * sourceHeight >= slot.height * sourceWidth) {
    width = Math.min(slot.width, Math.max(2, evenNearest(sourceWidth * slot.height, sourceHeight)));
  } else {
    height = Math.min(slot.height, Math.max(2, evenNearest(sourceHeight * slot.width, sourceWidth)));
  }
  return {
    x: slot.x + evenNearest(slot.width - width, 2),
    y: slot.y + evenNearest(slot.height - height, 2),
    width,
    height,
  };
}

/** LayoutGeometry.placement: which part of the source is drawn where, in layout pixels. */
export function placement(slot, sourceWidth, sourceHeight) {
  if (slot.fit === 'fit') {
    return { crop: { x: 0, y: 0, width: sourceWidth, height: sourceHeight },
             target: fitRect(sourceWidth, sourceHeight, slot) };
  }
  return { crop: coverCrop(sourceWidth, sourceHeight, slot.width, slot.height, slot.anchor), target: slot };
}

function roundedRect(context, x, y, width, height, radius) {
  if (radius <= 0) {
    context.rect(x, y, width, height);
  } else if (context.roundRect) {
    context.roundRect(x, y, width, height, radius);
  } else {
    context.moveTo(x + radius, y);
    context.arcTo(x + width, y, x + width, y + height, radius);
    context.arcTo(x + width, y + height, x, y + height, radius);
    context.arcTo(x, y + height, x, y, radius);
    context.arcTo(x, y, x + width, y, radius);
    context.closePath();
  }
}

/** A stable key for "has the layout changed", ignoring property order. */
function layoutKey(layout) {
  if (!layout) return '';
  const slots = (layout.slots || []).map((s) =>
    [s.camera, s.x, s.y, s.width, s.height, s.inset ? 1 : 0, s.border || 0, s.radius || 0, s.fit, s.anchor].join(','));
  return [layout.width, layout.height, layout.borderColor, layout.shadow ? 1 : 0, slots.join(';')].join('|');
}

export class Composite {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {(index: number) => {image: CanvasImageSource, width: number, height: number} | null} sourceFor
   */
  constructor(canvas, sourceFor) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d', { alpha: false });
    this.sourceFor = sourceFor;
    this.layout = null;
    this.key = '';
    this.names = new Map();
    this.frameRequested = false;
    this.drawn = { spec: null, key: '', at: 0, count: 0, layoutDrawnAt: 0 };
    stats.composite = this.drawn;

    // The canvas is as sharp as its box on screen, never larger than the recording and
    // never sharper than the previews it draws from: a 4K layout drawn 30 times a second
    // into a 600-pixel box would only burn power.
    new ResizeObserver(() => this.fitCanvas()).observe(canvas.parentElement);
  }

  /** Camera names for the "no picture" slots; cosmetic only. */
  setNames(names) {
    this.names = names;
  }

  /**
   * A new state's layout. A changed layout is drawn right now rather than on the next
   * animation frame, which a background tab would not get.
   */
  setLayout(layout) {
    const key = layoutKey(layout);
    if (key === this.key) {
      this.layout = layout;
      return;
    }
    this.layout = layout;
    this.key = key;
    // Which cameras the programme shows now (the director's cuts change it), for the
    // tests and for assistive tools: the canvas itself says nothing.
    this.canvas.dataset.shown = (layout?.slots ?? []).map((s) => s.camera).join(' ');
    this.fitCanvas();
    this.draw();
    // When the new geometry first reached the screen, for the tests' 150 ms bound.
    this.drawn.layoutDrawnAt = performance.now();
  }

  /** A camera has a new picture: redraw once per display frame however many arrive. */
  requestDraw() {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      this.draw();
    });
  }

  /**
   * Canvas pixels per layout pixel at which the largest slot shows its picture at one
   * source pixel per canvas pixel. Drawing larger only stretches the previews (640x360
   * under a 1280x720 layout): a 1088x612 canvas drawn 30 times a second took Chromium's
   * main thread 0.4 of a core where 640x360 took 0.18 (tools/bench/studio-latency.sh).
   * A smaller window (a picture-in-picture) is drawn at that scale too, a little soft.
   * 1 until the slot's camera has a picture.
   */
  sourceScale() {
    const slots = this.layout?.slots;
    if (!Array.isArray(slots) || slots.length === 0) return 1;
    const largest = slots.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
    const source = this.sourceFor(largest.camera);
    if (!source || !(source.width > 0) || !(source.height > 0) || !(largest.width > 0)) return 1;
    const { crop, target } = placement(largest, source.width, source.height);
    return target.width > 0 ? crop.width / target.width : 1;
  }

  /** The sources' sizes as a key, to fit the canvas again when a camera's picture changes size. */
  sourcesKey() {
    return (this.layout?.slots ?? []).map((slot) => {
      const source = this.sourceFor(slot.camera);
      return source ? `${source.width}x${source.height}` : '-';
    }).join(',');
  }

  /** Sizes the canvas; true when it changed (and was drawn again). */
  fitCanvas() {
    const layout = this.layout;
    const box = this.canvas.parentElement.getBoundingClientRect();
    const layoutWidth = layout?.width || 1280;
    const layoutHeight = layout?.height || 720;
    const ratio = window.devicePixelRatio || 1;
    this.fittedSources = this.sourcesKey();
    let scale = Math.min(1, this.sourceScale());
    if (box.width > 0 && box.height > 0) {
      scale = Math.min(scale, (box.width * ratio) / layoutWidth, (box.height * ratio) / layoutHeight);
    }
    const width = Math.max(2, Math.round(layoutWidth * scale));
    const height = Math.max(2, Math.round(layoutHeight * scale));
    if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width; // clears it: draw again
      this.canvas.height = height;
      this.draw();
      return true;
    }
    return false;
  }

  draw() {
    if (this.sourcesKey() !== this.fittedSources && this.fitCanvas()) return;
    const { canvas, context, layout } = this;
    context.fillStyle = BACKGROUND;
    context.fillRect(0, 0, canvas.width, canvas.height);
    if (!layout || !layout.width || !layout.height || !Array.isArray(layout.slots)) return;
    // The canvas keeps the layout's aspect, so one scale serves both axes for radii
    // and borders; positions use each axis's own to land on the canvas edges exactly.
    const sx = canvas.width / layout.width;
    const sy = canvas.height / layout.height;
    const s = Math.min(sx, sy);
    context.imageSmoothingQuality = 'high';

    for (const slot of layout.slots) {
      const x = slot.x * sx;
      const y = slot.y * sy;
      const w = slot.width * sx;
      const h = slot.height * sy;
      const inset = Boolean(slot.inset);
      // As InsetMask: the radius is at most half the short side, the inner edge follows.
      const radius = inset ? Math.min(slot.radius || 0, Math.min(slot.width, slot.height) / 2) : 0;
      const border = inset ? Math.min(slot.border || 0, Math.min(slot.width, slot.height) / 2) : 0;

      if (inset && layout.shadow) {
        // As InsetMask.shadowGeometry: offset width/60 down-right, blur width/30 (at least
        // 2 and 4 output pixels), half opacity; drawn under the window.
        const offset = Math.max(2, Math.floor(slot.width / 60)) * s;
        const blur = Math.max(4, Math.floor(slot.width / 30)) * s;
        context.save();
        context.shadowColor = 'rgba(0, 0, 0, 0.5)';
        context.shadowBlur = blur;
        context.shadowOffsetX = offset;
        context.shadowOffsetY = offset;
        context.beginPath();
        roundedRect(context, x, y, w, h, radius * s);
        context.fillStyle = '#000';
        context.fill();
        context.restore();
      }
      context.save();
      if (radius > 0) {
        context.beginPath();
        roundedRect(context, x, y, w, h, radius * s);
        context.clip();
      }
      const source = this.sourceFor(slot.camera);
      if (source && source.width > 0 && source.height > 0) {
        const { crop, target } = placement(slot, source.width, source.height);
        context.drawImage(source.image, crop.x, crop.y, crop.width, crop.height,
          target.x * sx, target.y * sy, target.width * sx, target.height * sy);
      } else {
        this.drawNoSignal(slot.camera, x, y, w, h);
      }
      context.restore();

      if (border > 0) {
        // The ring between the outer edge and the inner one, filled even-odd: the border
        // sits inside the window so the window keeps its footprint, as in the recording.
        const b = border * s;
        context.beginPath();
        roundedRect(context, x, y, w, h, radius * s);
        roundedRect(context, x + b, y + b, w - 2 * b, h - 2 * b, Math.max(0, radius - border) * s);
        context.fillStyle = this.borderColor();
        context.fill('evenodd');
      }
    }
    this.drawn.spec = layout.spec ?? null;
    this.drawn.key = this.key;
    this.drawn.at = performance.now();
    this.drawn.count += 1;
  }

  borderColor() {
    const color = this.layout?.borderColor;
    return typeof color === 'string' && /^#[0-9a-f]{3,8}$/i.test(color) ? color : '#ebebeb';
  }

  drawNoSignal(camera, x, y, w, h) {
    const { context } = this;
    context.fillStyle = NO_SIGNAL;
    context.fillRect(x, y, w, h);
    const name = this.names.get(camera);
    if (!name || w < 60 || h < 30) return;
    // A hint for the operator only: the recording shows plain grey here.
    context.fillStyle = 'rgba(235, 238, 245, 0.72)';
    context.font = `${Math.max(11, Math.min(22, h / 10))}px system-ui, sans-serif`;
    context.textAlign = 'center';
    context.textBaseline = 'middle';
    context.fillText(`${name}: no picture`, x + w / 2, y + h / 2, w - 16);
  }
}
