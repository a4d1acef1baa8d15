// Drawing of match rectangles: a rectangle is in percent of the image's width (left, right) and height (top, bottom).

function loadImage(src) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('The image could not be shown.'));
    img.src = src;
  });
}

/**
 * A canvas showing the image at `src` scaled to `maxWidth`, with the rectangles outlined and the outside of the first
 * dimmed, so the matched region (or the label) stands out.
 */
export async function imageWithRects(src, rects, { maxWidth = 260, color = '#2f6fde' } = {}) {
  const img = await loadImage(src);
  const scale = Math.min(1, maxWidth / img.naturalWidth);
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(img.naturalWidth * scale);
  canvas.height = Math.round(img.naturalHeight * scale);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  const boxes = rects.filter(Boolean).map((rect) => ({
    x: (rect.left / 100) * canvas.width,
    y: (rect.top / 100) * canvas.height,
    w: ((rect.right - rect.left) / 100) * canvas.width,
    h: ((rect.bottom - rect.top) / 100) * canvas.height,
  }));
  if (boxes.length > 0) {
    // Dim what lies outside the first rectangle (the match region, or a wine label), once.
    const [outer] = boxes;
    ctx.fillStyle = 'rgba(15, 20, 30, 0.45)';
    ctx.beginPath();
    ctx.rect(0, 0, canvas.width, canvas.height);
    ctx.rect(outer.x, outer.y, outer.w, outer.h);
    ctx.fill('evenodd');
  }
  boxes.forEach((box, i) => {
    ctx.lineWidth = i === 0 ? 3 : 2;
    ctx.strokeStyle = color;
    ctx.strokeRect(box.x, box.y, box.w, box.h);
  });
  canvas.dataset.rects = String(rects.filter(Boolean).length);
  return canvas;
}
